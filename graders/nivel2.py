"""Judge the code of `nivel-2` from what its runs left: a reference run, then one run per crash point.

The judge never runs student code. It asks a runner (graders.runs: a sandboxed process in
the CLI, the same interpreter in the browser) for the observations of each run: the
operations reported, the model and tool calls served, and the folder read after death.
"""

from __future__ import annotations

import functools
import json
import os

from . import protocol
from .controller import CrashPlan, Op, RunLog
from .disk import CHECKPOINT_NAME, checkpoint_paths, disk_view, left_on_disk
from .executor import SYSTEM_TMP, WORKDIR
from .fake_agent import TASK, script
from .shadow import history, unexplained
from .verdict import CriterionResult

MAX_CRASH_RUNS = 200
CODE_CRITERIA = ("escrita-atomica", "ponto-a", "seis-campos", "executavel")
ORDINAL = {1: "1ª", 2: "2ª", 3: "3ª"}
DIFFERENT = "o código se comporta diferente quando roda de novo"


def job() -> dict:
    return {"function": "run_agent", "task": TASK, "tools": script()["tools"],
            "missing": "não encontrei a função `run_agent(task, tools, call_model, execute_tool)` no código"}


# --- reading what is on disk --------------------------------------------------------------


def parse(content: bytes | None):
    """The JSON document in `content`, or raise ValueError (what a resume would hit)."""
    if content is None:
        raise ValueError("ausente")
    try:
        return json.loads(content.decode("utf-8-sig"))
    except RecursionError:
        raise ValueError("aninhado demais") from None


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


@functools.lru_cache(maxsize=4096)
def complete_key(content: bytes | None) -> str | None:
    """The canonical form of a complete checkpoint, None when it would not load (cached: runs repeat)."""
    try:
        return canonical(parse(content))
    except ValueError:
        return None


def _name(path: str) -> str:
    return os.path.basename(path) or path


def shown_path(path: str) -> str:
    """A path as the student thinks of it: relative to the folder the code ran in."""
    if path.startswith(SYSTEM_TMP + "/") or path.startswith("/tmp/"):
        return f"{_name(path)}, na pasta temporária do sistema"
    if path.startswith(WORKDIR + "/"):
        return path[len(WORKDIR) + 1:]
    return path


def _is_checkpoint(path: str) -> bool:
    return _name(path) == CHECKPOINT_NAME


def describe_op(op: Op, torn_at: int | None = None) -> str:
    """Where a crash lands: «logo antes da escrita de 120 bytes em x», «durante execute_tool('y')»..."""
    if op.kind == "tool":
        return f"durante execute_tool('{op.path}')"
    if op.kind == "write" and torn_at is not None:
        return f"no meio da escrita de {op.size} bytes em {_name(op.path)}, depois de {torn_at} bytes"
    return f"logo antes {what_op(op)}"


def what_op(op: Op) -> str:
    """An operation as a noun phrase: «da escrita de 120 bytes em x», «da chamada execute_tool('y')»."""
    name = _name(op.path)
    if op.kind == "tool":
        return f"da chamada execute_tool('{op.path}')"
    if op.kind == "write":
        return f"da escrita de {op.size} bytes em {name}"
    return {
        "open": f"da abertura de {name} para escrita",
        "close": f"do fechamento de {name}",
        "fsync": f"do os.fsync de {name}",
        "replace": f"da troca de {_name(op.target)} por {name}",
        "rename": f"da troca de {_name(op.target)} por {name}",
        "remove": f"da remoção de {name}",
        "truncate": f"do truncamento de {name}",
        "mkdir": f"da criação da pasta {name}",
        "rmdir": f"da remoção da pasta {name}",
    }.get(op.kind, f"da operação {op.kind} em {name}")


def _article(phrase: str) -> str:
    """«da escrita…» → «a escrita…», «do fechamento…» → «o fechamento…»."""
    return phrase[1:] if phrase.startswith(("da ", "do ")) else phrase


def live_path(ref: RunLog) -> str | None:
    """The checkpoint a resume reads: the checkpoint.json changed at the most moments of the loop
    (a moment: between two calls to the model or the tools). A history copy is made at one moment."""
    moments: dict[str, set] = {}
    calls = 0
    for op in ref.ops:
        if op.kind == "tool":
            calls += 1
        if op.failed or op.kind not in ("open", "write", "truncate", "replace", "rename"):
            continue
        changed = op.target if op.kind in ("replace", "rename") else op.path  # moving one away archives it
        if _is_checkpoint(changed):
            moments.setdefault(changed, set()).add((op.model_calls, calls))
    if not moments:
        return None
    return min(moments, key=lambda p: (-len(moments[p]), p.count("/"), p))


# --- the judge ---------------------------------------------------------------------------------


class Nivel2Judge:
    def __init__(self, runner):
        self.runner = runner
        self.plans: list[CrashPlan] = []
        self.runs: dict[CrashPlan, RunLog] = {}
        self.script = script()
        self.tool_uses = self.script["tool_uses"]
        self.responses = self.script["responses"]
        self.tool_results = self.script["tool_results"]
        self.outputs = [r["usage"]["output_tokens"] for r in self.responses]

    def grade(self) -> dict[str, CriterionResult]:
        ref = self.runner.run(None)
        results = {"executavel": self.check_runs(ref)}
        blocker = self._blocker(ref)
        if blocker:
            for c in ("escrita-atomica", "ponto-a", "seis-campos"):
                results[c] = CriterionResult(c, False, blocker)
            return {c: results[c] for c in CODE_CRITERIA}
        self.ref = ref
        self.path = live_path(ref)
        self.shown = shown_path(self.path)
        self.total = len(ref.ops)
        plans = self.plans = self._plans(ref)
        runs = self.runs = {}
        run = self.run

        self.timeline = history(ref.ops, self.path)
        results["escrita-atomica"] = self.check_atomic((p, run(p)) for p in plans)
        # When the write passed, every crash run's folder matched the reported steps: those steps
        # are the real timeline. Otherwise, read it from the folder of every "just before" crash run.
        if not results["escrita-atomica"].passed:
            for plan in plans:
                if plan.torn_at is None:
                    run(plan)
            self.timeline = self._timeline(runs)
        tool_plans = [p for p in plans if ref.ops[p.op_index - 1].kind == "tool"]
        results["ponto-a"] = self.check_point_a({p: run(p) for p in tool_plans})
        results["seis-campos"] = self.check_fields()
        return {c: results[c] for c in CODE_CRITERIA}

    def run(self, plan: CrashPlan) -> RunLog:
        """The crash run of this plan, run once (the checks and the timeline share it)."""
        if plan not in self.runs:
            self.runs[plan] = self.runner.run(plan)
        return self.runs[plan]

    def crash_points(self) -> dict | None:
        """Every crash point, its outcome and what it left on disk (None when no crash was simulated)."""
        if not getattr(self, "plans", None):
            return None
        from .crash_points import describe

        return describe(self)

    def _timeline(self, runs: dict) -> list[bytes | None]:
        """What the live checkpoint held after each step (index i: after op i), read from the crash
        runs' real folders; the reported steps fill in where a run was not sampled or went its own way."""
        timeline = list(self.timeline)  # the reported steps' account, corrected by what was seen
        for plan, run in runs.items():
            if plan.torn_at is None and not self._disagreement(plan, run):
                timeline[plan.op_index - 1] = run.disk.get(self.path)
        timeline[-1] = self.ref.disk.get(self.path)
        return timeline

    # --- what stops the disk checks ---------------------------------------------------

    def _blocker(self, ref: RunLog) -> str:
        end = ref.end or {}
        if ref.stopped in ("lost", "protocol", "timeout") or ref.end is None:
            return f"Não dá para avaliar: {self._stop_message(ref)}."
        if end.get("kind") in ("exit", "missing") or end.get("phase") == "load" and end.get("kind") != "ok":
            return f"Não dá para avaliar: {_text(end.get('message')) or 'o código não carregou'}."
        if end.get("kind") != "ok" or ref.stopped:
            return "Não dá para simular quedas enquanto run_agent não roda até o fim (veja o critério «executável»)."
        if live_path(ref) is None:
            if checkpoint_paths(ref.disk):
                return (f"O {shown_path(checkpoint_paths(ref.disk)[0])} apareceu em disco por um caminho que o corretor "
                        "não acompanha (nenhuma operação de open, os ou pathlib o gravou). Grave o checkpoint com "
                        "open/os/pathlib e troque-o com os.replace.")
            return "run_agent terminou sem ter gravado nenhum checkpoint.json na pasta de trabalho."
        return ""

    @staticmethod
    def _stop_message(run: RunLog) -> str:
        return {
            "lost": "o processo terminou sem dizer como (o código provavelmente encerrou o processo à força)",
            "protocol": "o processo mandou relatórios ilegíveis ao corretor",
            "timeout": "o código não terminou no tempo permitido (provavelmente um laço infinito)",
            "runaway": "o código fez operações de arquivo demais",
        }.get(run.stopped, "o processo terminou antes do fim")

    # --- crash plans ------------------------------------------------------------------------

    def _plans(self, ref: RunLog) -> list[CrashPlan]:
        plans = []
        for op in ref.ops:
            plans.append(CrashPlan(op.index))
            # A torn write matters where a resume reads: a torn temporary file is never read.
            if op.kind == "write" and op.size > 1 and _is_checkpoint(op.path):
                for offset in sorted({1, op.size // 2, op.size - 1}):
                    plans.append(CrashPlan(op.index, offset))
        if len(plans) > MAX_CRASH_RUNS:
            # Many tiny writes: keep every crash around a rename or a tool, spread the rest evenly.
            kept = [p for p in plans if ref.ops[p.op_index - 1].kind in ("tool", "replace", "rename")]
            others = [p for p in plans if p not in kept]
            room = max(MAX_CRASH_RUNS - len(kept), 0)
            step = len(others) / room if room else 0
            plans = sorted(kept + [others[int(i * step)] for i in range(room)],
                           key=lambda p: (p.op_index, -1 if p.torn_at is None else p.torn_at))
        return plans

    def _label(self, plan: CrashPlan) -> str:
        op = self.ref.ops[plan.op_index - 1]
        return f"Queda simulada na operação {op.index} de {self.total}, {describe_op(op, plan.torn_at)}"

    def _disagreement(self, plan: CrashPlan, run: RunLog) -> str:
        """Why this run cannot be compared with the reference run ("" when it can)."""
        i = plan.op_index
        same = len(run.ops) >= i and all(a.same_step(b) for a, b in zip(run.ops[:i], self.ref.ops[:i]))
        if same and run.stopped == "crash":
            return ""
        if run.stopped in ("timeout", "lost", "protocol"):
            why = self._stop_message(run)
        else:
            seen = run.ops[i - 1] if len(run.ops) >= i else None
            why = DIFFERENT + (
                f": na referência, o passo {i} foi {_article(what_op(self.ref.ops[i - 1]))}; desta vez, foi "
                + (_article(what_op(seen)) if seen else "o fim (o código terminou antes de chegar lá)")
            )
        return f"{self._label(plan)}: {why}."

    def _unexplained(self, plan: CrashPlan, run: RunLog) -> str:
        done = plan.op_index if run.torn else plan.op_index - 1  # a torn write went partly to disk
        paths = unexplained(run.ops[:done], plan.torn_at if run.torn else None, run.disk, _is_checkpoint)
        if not paths:
            return ""
        path = paths[0]
        return (
            f"{self._label(plan)}: o {shown_path(path)} em disco não é o que as operações do código explicam — "
            "ele foi alterado por um caminho que o corretor não acompanha (descritor duplicado, mmap, "
            "os.pwritev, uma thread…). Grave o checkpoint só com open/os/pathlib e troque-o com os.replace."
        )

    # --- executavel -------------------------------------------------------------------------

    def check_runs(self, ref: RunLog) -> CriterionResult:
        cid = "executavel"
        end = ref.end or {}
        if ref.end is None or ref.stopped in ("lost", "protocol", "timeout", "runaway"):
            return CriterionResult(cid, False, f"run_agent não chegou ao fim: {self._stop_message(ref)}.")
        if end.get("phase") == "load" and end.get("kind") != "ok":
            return CriterionResult(cid, False, f"O código falhou ao ser carregado: {_text(end.get('message'))}.")
        if end.get("kind") != "ok":
            return CriterionResult(cid, False, f"run_agent não chegou ao fim: {_text(end.get('message')) or end.get('kind')}.")
        calls = ref.model_calls
        if len(calls) != len(self.responses):
            return CriterionResult(
                cid, False,
                f"O modelo falso foi chamado {len(calls)} vez(es); o roteiro tem {len(self.responses)} chamadas "
                "(duas ferramentas e a resposta final).",
            )
        expected_tools = [(u["name"], u["input"]) for u in self.tool_uses]
        if ref.tool_calls != expected_tools:
            return CriterionResult(
                cid, False,
                f"execute_tool foi chamado com {protocol.brief(ref.tool_calls, 160)}; o esperado era "
                "buscar_tickets e depois gravar_tabela, cada uma com o input que o modelo pediu.",
            )
        problem = self._conversation_problem(calls)
        if problem:
            return CriterionResult(cid, False, problem)
        state = end.get("value")
        if not isinstance(state, dict):
            return CriterionResult(
                cid, False, f"run_agent terminou, mas devolveu {protocol.brief(state, 60)} em vez do estado (o dicionário `state`)."
            )
        if state.get("turns") != len(self.tool_uses):
            return CriterionResult(
                cid, False, f"O estado devolvido tem turns = {protocol.brief(state.get('turns'))}; depois de duas ferramentas, deveria ser 2."
            )
        return CriterionResult(cid, True)

    def _conversation_problem(self, calls: list[dict]) -> str:
        first = calls[0]["messages"]
        if not isinstance(first, list) or not first or not isinstance(first[0], dict) or first[0].get("role") != "user":
            return "Na 1ª chamada, o modelo deveria receber a tarefa como mensagem do usuário."
        for k in range(1, len(calls)):
            sent, before = calls[k]["messages"], calls[k - 1]["messages"]
            block = self.tool_uses[k - 1]
            where = f"Na {ORDINAL.get(k + 1, f'{k + 1}ª')} chamada ao modelo"
            if not isinstance(sent, list) or sent[: len(before)] != before:
                return f"{where}, o histórico anterior de messages não foi mantido."
            new = sent[len(before):]
            if len(new) != 2:
                return f"{where}, messages deveria ter 2 mensagens novas (a resposta do assistente e o tool_result), mas tem {len(new)}."
            assistant, result = new
            if not isinstance(assistant, dict) or assistant.get("role") != "assistant" or assistant.get("content") != self.responses[k - 1]["content"]:
                return f"{where}, falta a resposta anterior do modelo como mensagem do assistente (com todo o content)."
            blocks = result.get("content") if isinstance(result, dict) and result.get("role") == "user" else None
            ok = isinstance(blocks, list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") == block["id"]
                and b.get("content") == self.tool_results[block["name"]]
                for b in blocks
            )
            if not ok:
                return (
                    f"{where}, falta o resultado de {block['name']} como tool_result "
                    f"(tool_use_id {block['id']!r}) numa mensagem do usuário."
                )
        return ""

    # --- escrita-atomica ------------------------------------------------------------------

    def check_atomic(self, crash_runs) -> CriterionResult:
        """`crash_runs`: (plan, run) pairs, run lazily: the check stops at the first telling failure."""
        cid = "escrita-atomica"
        hint = ""
        unexplained_ref = unexplained(self.ref.ops, None, self.ref.disk, _is_checkpoint)
        if unexplained_ref:
            return CriterionResult(
                cid, False,
                f"Ao fim da execução, o {shown_path(unexplained_ref[0])} em disco não é o que as operações do código explicam — "
                "ele foi alterado por um caminho que o corretor não acompanha (descritor duplicado, mmap, os.pwritev, uma thread…). "
                "Grave o checkpoint só com open/os/pathlib e troque-o com os.replace.",
            )
        synced: set[str] = set()  # temporary files fsynced since their last write
        for op in self.ref.ops:
            if op.kind == "write":
                synced.discard(op.path)
            elif op.kind == "fsync":
                synced.add(op.path)
            elif op.kind in ("replace", "rename") and op.target == self.path and not op.failed:
                src_dir, dst_dir = os.path.dirname(op.path), os.path.dirname(op.target)
                if src_dir != dst_dir:
                    return CriterionResult(
                        cid, False,
                        f"O arquivo temporário ({shown_path(op.path)}) fica em outra pasta, não na de {self.shown}. "
                        "Entre sistemas de arquivos diferentes, os.replace e os.rename nem conseguem trocar o arquivo "
                        "(OSError EXDEV, «Invalid cross-device link»), e shutil.move passa a copiar, o que não é atômico: "
                        "crie o temporário na mesma pasta do checkpoint.",
                    )
                if op.path not in synced and not hint:
                    hint = (
                        "Dica: sem os.fsync no temporário antes do os.replace, a troca já protege contra o processo morto; "
                        "contra falta de energia, chame f.flush() e os.fsync(f.fileno()) antes de fechar, e depois "
                        "os.fsync na pasta, para gravar a própria troca."
                    )
        first = None
        for plan, run in crash_runs:
            failure = self.crash_failure(plan, run)
            if failure is None:
                continue
            telling, result = failure
            if telling:
                return result  # the most telling case: a complete checkpoint existed and was destroyed
            first = first or result
        if first is not None:
            return first
        return CriterionResult(cid, True, hint=hint)

    def _complete_before(self, run: RunLog, op_index: int) -> set[str]:
        """The canonical JSON of every complete checkpoint on disk before op_index, in this run."""
        keys = {complete_key(c) for c in history(run.ops[: op_index - 1], self.path)}
        keys.discard(None)
        return keys

    def crash_failure(self, plan: CrashPlan, run: RunLog):
        cid = "escrita-atomica"
        why = self._disagreement(plan, run)
        if why:
            return True, CriterionResult(cid, False, why)
        why = self._unexplained(plan, run)
        if why:
            return True, CriterionResult(cid, False, why)
        label = self._label(plan)
        content = run.disk.get(self.path)
        complete = self._complete_before(run, plan.op_index)
        finished = run.ops[plan.op_index - 1].model_calls >= len(self.responses)
        if self.path not in run.disk:
            if not complete or finished:
                return None  # nothing saved yet, or the task had ended: removing it is allowed
            return True, CriterionResult(
                cid, False,
                f"{label}: o {self.shown} sumiu do disco, embora um checkpoint completo já tivesse sido gravado. "
                "Na retomada, não haveria de onde continuar.",
                disk=disk_view(label, self.shown, None),
            )
        try:
            value = parse(content)
        except ValueError:
            earlier = (
                "e a versão anterior, que estava completa, já tinha sido apagada"
                if complete else "e não há versão anterior para onde recuar"
            )
            shown_content = content if content is not None else b""
            return bool(complete), CriterionResult(
                cid, False,
                f"{label}: o {self.shown} {left_on_disk(shown_content)} — não é um JSON completo. "
                f"Na retomada, json.loads falharia, {earlier}.",
                disk=disk_view(label, self.shown, content),
            )
        if canonical(value) not in complete:
            return bool(complete), CriterionResult(
                cid, False,
                f"{label}: o {self.shown} abre, mas não é nenhum dos checkpoints completos gravados até ali "
                f"(é uma mistura: {protocol.brief(value, 80)}).",
                disk=disk_view(label, self.shown, content),
            )
        return None

    # --- ponto-a ----------------------------------------------------------------------------

    def check_point_a(self, tool_runs: dict) -> CriterionResult:
        cid = "ponto-a"
        tool_ops = [op for op in self.ref.ops if op.kind == "tool"]
        turn_of = {u["name"]: k for k, u in enumerate(self.tool_uses, start=1)}
        if sorted({op.path for op in tool_ops}) != sorted(turn_of):
            return CriterionResult(cid, False, "Não dá para verificar o ponto A: run_agent não executou as duas ferramentas do roteiro.")
        for op in tool_ops:
            failure = self.point_a_failure(op, tool_runs[CrashPlan(op.index)])
            if failure is not None:
                return failure
        return self._check_point_b(tool_ops, turn_of)

    def pending_expected(self, op: Op) -> dict | None:
        """The pendingToolUse a crash inside this tool call should find on disk."""
        block = next((u for u in self.tool_uses if u["name"] == op.path), None)
        return {key: block[key] for key in ("id", "name", "input")} if block else None

    def point_a_failure(self, op: Op, run: RunLog) -> CriterionResult | None:
        """What a crash inside this tool call left that breaks point A (None: the call was on disk)."""
        cid = "ponto-a"
        k = next(n for n, u in enumerate(self.tool_uses, start=1) if u["name"] == op.path)
        label = f"Queda simulada durante execute_tool('{op.path}') (turno {k})"
        plan = CrashPlan(op.index)
        why = self._disagreement(plan, run)
        if why:
            return CriterionResult(cid, False, why)
        content = run.disk.get(self.path)
        if content is None:
            return CriterionResult(
                cid, False,
                f"{label}: não havia nenhum {self.shown} em disco — a chamada em andamento não deixou rastro. "
                "Grave o ponto A (pendingToolUse preenchido) antes de chamar execute_tool.",
                disk=disk_view(label, self.shown, None),
            )
        try:
            state = parse(content)
        except ValueError:
            return CriterionResult(
                cid, False, f"{label}: o {self.shown} em disco {left_on_disk(content)} — não é um JSON completo.",
                disk=disk_view(label, self.shown, content),
            )
        pending = state.get("pendingToolUse", "ausente") if isinstance(state, dict) else "ausente"
        if pending in (None, "ausente"):
            shown = "null" if pending is None else "ausente"
            return CriterionResult(
                cid, False,
                f"{label}: o {self.shown} em disco tem pendingToolUse = {shown}, "
                "então a chamada em andamento não deixou rastro. Grave o ponto A — pendingToolUse = "
                "{id, name, input} do bloco — depois de extrair block e antes de execute_tool.",
                disk=disk_view(label, self.shown, content),
            )
        # Which call is pending is this criterion; the record's exact shape is «seis-campos».
        expected = self.pending_expected(op)
        if not isinstance(pending, dict) or any(pending.get(key) != expected[key] for key in expected):
            return CriterionResult(
                cid, False,
                f"{label}: pendingToolUse em disco é {protocol.brief(pending, 120)}, mas a ferramenta em andamento "
                f"era {protocol.brief(expected, 120)}.",
                disk=disk_view(label, self.shown, content),
            )
        return None

    def _check_point_b(self, tool_ops: list[Op], turn_of: dict) -> CriterionResult:
        """After each tool, a checkpoint with its result in messages and nothing pending."""
        last_calls = [op for n, op in enumerate(tool_ops) if all(o.path != op.path for o in tool_ops[n + 1:])]
        for n, op in enumerate(last_calls):
            k = turn_of[op.path]
            block = self.tool_uses[k - 1]
            end = last_calls[n + 1].index if n + 1 < len(last_calls) else len(self.timeline) - 1
            states = []
            for content in self.timeline[op.index: end + 1]:
                try:
                    states.append(parse(content))
                except ValueError:
                    continue
            if not any(isinstance(s, dict) and s.get("pendingToolUse") is None and _has_result(s, block["id"]) for s in states):
                last = states[-1] if states else None
                seen = (
                    f"o último tinha pendingToolUse = {protocol.brief(last.get('pendingToolUse'))}"
                    if isinstance(last, dict) else "nenhum checkpoint foi gravado nesse trecho"
                )
                return CriterionResult(
                    "ponto-a", False,
                    f"Depois que {block['name']} terminou, nenhum checkpoint gravou o ponto B "
                    f"(o resultado em messages e pendingToolUse = null) antes "
                    f"{'da próxima ferramenta' if n + 1 < len(last_calls) else 'do fim'}: {seen}.",
                )
        return CriterionResult("ponto-a", True)

    # --- seis-campos ----------------------------------------------------------------------

    def tokens_allowed(self, served: int) -> set[int]:
        """The accumulated output_tokens after `served` answers, counting the first one or not."""
        total = sum(self.outputs[:served])
        return {total, total - self.outputs[0]} if served else {0}

    def check_fields(self) -> CriterionResult:
        cid = "seis-campos"
        calls = self.ref.model_calls
        conversation = calls[-1]["messages"] if calls and isinstance(calls[-1]["messages"], list) else []
        seen = set()
        ops = self.ref.ops
        for index, op in enumerate(ops, start=1):
            content = self.timeline[index]
            if content == self.timeline[index - 1]:
                continue
            try:
                state = parse(content)
            except ValueError:
                continue
            key = canonical(state)
            if key in seen:
                continue
            seen.add(key)
            # Saved at this step or (through a path no step reports) before the next one.
            served = (op.model_calls, ops[index].model_calls if index < len(ops) else len(calls))
            allowed = self.tokens_allowed(served[0]) | self.tokens_allowed(served[1])
            found = protocol.problems(state, task=TASK, conversation=conversation, tokens_allowed=allowed)
            if found:
                when = f"No checkpoint em disco depois da operação {index} ({_article(what_op(op))})"
                return CriterionResult(cid, False, f"{when}: " + "; ".join(found) + ".", disk=disk_view(when, self.shown, content))
        if not seen:
            return CriterionResult(cid, False, "Nenhum checkpoint completo foi gravado durante a execução.")
        return CriterionResult(cid, True)


def _has_result(state: dict, tool_use_id: str) -> bool:
    messages = state.get("messages")
    return isinstance(messages, list) and any(
        isinstance(m, dict) and isinstance(m.get("content"), list)
        and any(isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") == tool_use_id for b in m["content"])
        for m in messages
    )


def _text(value) -> str:
    return value[:500] if isinstance(value, str) else ""


def grade_code(source: str, filename: str = "solucao.py", runner_factory=None) -> tuple[dict[str, CriterionResult], str, dict | None]:
    from .runs import code_failure, local_runner

    failure = code_failure(source, filename, CODE_CRITERIA)
    if failure:
        return failure, "", None
    runner = (runner_factory or local_runner)(source, filename, job())
    try:
        judge = Nivel2Judge(runner)
        results = judge.grade()
        return results, runner.output, judge.crash_points()
    finally:
        runner.close()
