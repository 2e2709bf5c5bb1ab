"""Grade the code of `nivel-2`: run `run_agent` against the fakes, crash it at every step, read the disk.

One reference run records every file-system operation and what `checkpoint.json` held
before each of them. Then the code is run again once per crash point (before each
operation, inside each write, inside each tool call) and the folder is read as a
resumed process would read it.
"""

from __future__ import annotations

import copy
import functools
import json
import os
from dataclasses import dataclass, field

from . import protocol
from .crashfs import CrashPlan, FileSystemTracer, Op, Trace
from .disk import (
    CHECKPOINT_NAME,
    checkpoint_files,
    disk_view,
    left_on_disk,
    main_checkpoint,
)
from .fake_agent import TASK, FakeAgentWorld, script
from .guard import (
    SYSTEM_TMP,
    BoundedOutput,
    CodeError,
    Outcome,
    Sandbox,
    compile_student,
    snapshot,
)
from .verdict import CriterionResult

MAX_CRASH_RUNS = 200
CODE_CRITERIA = ("escrita-atomica", "ponto-a", "seis-campos", "executavel")
ORDINAL = {1: "1ª", 2: "2ª", 3: "3ª"}


class _Tampered(Exception):
    """A crash run rebound something it must not: no verdict on the disk can be trusted."""


@dataclass
class Run:
    outcome: Outcome
    load: Outcome
    trace: Trace
    world: FakeAgentWorld
    files: dict[str, bytes]  # checkpoint.json files left in the folder, by relative path
    bypasses: list[str]
    workdir: str
    # checkpoint.json files before each operation (index = op index), then at the end.
    snapshots: list[dict[str, bytes]] = field(default_factory=list)


def run_once(code, filename: str, output: BoundedOutput, plan: CrashPlan | None = None, baseline=None) -> Run:
    # Index 0 is unused so that snapshots[i] is the disk just before operation i.
    snapshots: list[dict[str, bytes]] = [{}]
    box = Sandbox(code, filename, lambda workdir: FileSystemTracer(workdir, plan), output, baseline)
    touched = [True]  # did the previous operation touch a checkpoint.json?

    def before_op(op: Op):
        # The folder is read again only after a step that can change a checkpoint.json;
        # writes to a temporary file leave it as it was.
        snapshots.append(checkpoint_files(box.workdir) if touched[0] else snapshots[-1])
        touched[0] = op.kind == "rmdir" or CHECKPOINT_NAME in (_name(op.path), _name(op.target))

    box.tracer.on_op = before_op
    world = FakeAgentWorld(box.tracer)
    try:
        load = box.load()
        if not load.ok:
            outcome = load
        elif box.function("run_agent") is None:
            outcome = Outcome("missing", message="não encontrei a função `run_agent(task, tools, call_model, execute_tool)` no código")
        else:
            outcome = box.call(box.function("run_agent"), TASK, copy.deepcopy(world.script["tools"]), world.call_model, world.execute_tool)
        files = checkpoint_files(box.workdir)
        snapshots.append(files)
        return Run(outcome, load, box.tracer.trace, world, files, list(box.tracer.bypasses), box.workdir, snapshots)
    finally:
        box.cleanup()


# --- reading what is on disk --------------------------------------------------------------


def parse(content: bytes | None):
    """The JSON document in `content`, or raise ValueError (what a resume would hit)."""
    if content is None:
        raise ValueError("ausente")
    return json.loads(content.decode("utf-8-sig"))


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


def shown_path(path: str, workdir: str) -> str:
    """A path as the student thinks of it: relative to the folder the code ran in."""
    relative = os.path.relpath(path, workdir)
    if relative.startswith(os.pardir + os.sep + SYSTEM_TMP):
        return f"{_name(path)}, na pasta temporária do sistema"
    return relative


def describe_op(op: Op, torn_at: int | None = None) -> str:
    name = _name(op.path)
    if op.kind == "tool":
        return f"durante execute_tool('{op.path}') (turno {op.tool_call})"
    if op.kind == "write":
        if torn_at is not None:
            return f"no meio da escrita de {op.size} bytes em {name}, depois de {torn_at} bytes"
        return f"logo antes da escrita de {op.size} bytes em {name}"
    what = {
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
    return f"logo antes {what}"


def crash_label(op: Op, torn_at: int | None, total: int) -> str:
    return f"Queda simulada na operação {op.index} de {total}, {describe_op(op, torn_at)}"


# --- the grader -------------------------------------------------------------------------------


class Nivel2Grader:
    def __init__(self, source: str, filename: str = "solucao.py"):
        self.source = source
        self.filename = filename
        self.output = BoundedOutput()
        # The grader's own copy of the script, out of reach of the code it judges.
        self.script = script()
        self.tool_uses = self.script["tool_uses"]
        self.responses = self.script["responses"]
        self.tool_results = self.script["tool_results"]

    def grade(self) -> dict[str, CriterionResult]:
        try:
            code = compile_student(self.source, self.filename)
        except CodeError as exc:
            return {c: CriterionResult(c, False, str(exc)) for c in CODE_CRITERIA}
        self.code = code
        self.baseline = snapshot()
        ref = run_once(code, self.filename, self.output, baseline=self.baseline)
        results = {"executavel": self.check_runs(ref)}
        blocker = self._blocker(ref)
        if blocker:
            for c in ("escrita-atomica", "ponto-a", "seis-campos"):
                results[c] = CriterionResult(c, False, blocker)
            return {c: results[c] for c in CODE_CRITERIA}
        self.path = main_checkpoint(ref.files)
        self.total = len(ref.trace.ops)
        plans = self._plans(ref)
        tool_plans = [p for p in plans if ref.trace.ops[p.op_index - 1].kind == "tool"]
        try:
            tool_runs = dict(self._crash_runs(tool_plans))
            results["ponto-a"] = self.check_point_a(ref, tool_runs)
            results["escrita-atomica"] = self.check_atomic(ref, self._crash_runs(p for p in plans if p not in tool_runs))
        except _Tampered as exc:
            for c in ("escrita-atomica", "ponto-a", "seis-campos"):
                results[c] = CriterionResult(c, False, f"Não dá para avaliar: {exc}.")
            return {c: results[c] for c in CODE_CRITERIA}
        results["seis-campos"] = self.check_fields(ref)
        return {c: results[c] for c in CODE_CRITERIA}

    # --- what stops the disk checks ---------------------------------------------------

    def _blocker(self, ref: Run) -> str:
        if ref.outcome.kind in ("tampered", "exit", "missing") or ref.load.kind != "ok":
            return f"Não dá para avaliar: {ref.outcome.message or ref.load.message}."
        if ref.bypasses:
            return (
                "O código mexeu em arquivos por um caminho que o simulador de quedas não acompanha "
                f"({ref.bypasses[0]}). Use open, os, pathlib ou tempfile."
            )
        if not ref.outcome.ok:
            return "Não dá para simular quedas enquanto run_agent não roda até o fim (veja o critério «executável»)."
        if not ref.files:
            return "run_agent terminou sem deixar nenhum checkpoint.json na pasta de trabalho."
        return ""

    # --- crash runs ---------------------------------------------------------------------

    def _plans(self, ref: Run) -> list[CrashPlan]:
        plans = []
        for op in ref.trace.ops:
            plans.append(CrashPlan(op.index))
            if op.kind == "write" and op.size > 1:
                for offset in sorted({1, op.size // 2, op.size - 1}):
                    plans.append(CrashPlan(op.index, offset))
        if len(plans) > MAX_CRASH_RUNS:
            # Many tiny writes: keep every crash around a rename or a tool, spread the rest evenly.
            kept = [p for p in plans if ref.trace.ops[p.op_index - 1].kind in ("tool", "replace", "rename")]
            others = [p for p in plans if p not in kept]
            room = max(MAX_CRASH_RUNS - len(kept), 0)
            step = len(others) / room if room else 0
            plans = sorted(kept + [others[int(i * step)] for i in range(room)],
                           key=lambda p: (p.op_index, -1 if p.torn_at is None else p.torn_at))
        return plans

    def _crash_runs(self, plans):
        """(plan, run) pairs, run lazily: the checks stop at the first telling failure."""
        for plan in plans:
            run = run_once(self.code, self.filename, BoundedOutput(0), plan, self.baseline)
            if "tampered" in (run.outcome.kind, run.load.kind):
                raise _Tampered(run.outcome.message or run.load.message)
            yield plan, run

    # --- executavel -------------------------------------------------------------------------

    def check_runs(self, ref: Run) -> CriterionResult:
        cid = "executavel"
        if ref.load.kind != "ok":
            return CriterionResult(cid, False, f"O código falhou ao ser carregado: {ref.load.message}.")
        outcome = ref.outcome
        if not outcome.ok:
            return CriterionResult(cid, False, f"run_agent não chegou ao fim: {outcome.message}.")
        calls = ref.world.model_calls
        if len(calls) != len(self.responses):
            return CriterionResult(
                cid, False,
                f"O modelo falso foi chamado {len(calls)} vez(es); o roteiro tem {len(self.responses)} chamadas "
                "(duas ferramentas e a resposta final).",
            )
        expected_tools = [(u["name"], u["input"]) for u in self.tool_uses]
        if ref.world.tool_calls != expected_tools:
            return CriterionResult(
                cid, False,
                f"execute_tool foi chamado com {protocol.brief(ref.world.tool_calls, 160)}; o esperado era "
                "buscar_tickets e depois gravar_tabela, cada uma com o input que o modelo pediu.",
            )
        problem = self._conversation_problem(calls)
        if problem:
            return CriterionResult(cid, False, problem)
        state = outcome.value
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

    def _complete_before(self, run: Run, op_index: int) -> set[str]:
        """The canonical JSON of every complete checkpoint on disk before op_index."""
        keys = {complete_key(snap.get(self.path)) for snap in run.snapshots[1: op_index + 1]}
        keys.discard(None)
        return keys

    def check_atomic(self, ref: Run, crashes) -> CriterionResult:
        cid = "escrita-atomica"
        hint = ""
        for record in ref.trace.renames:
            if record.op.target.endswith(os.sep + self.path) or _name(record.op.target) == CHECKPOINT_NAME:
                src_dir, dst_dir = os.path.dirname(record.op.path), os.path.dirname(record.op.target)
                if src_dir != dst_dir:
                    return CriterionResult(
                        cid, False,
                        f"O arquivo temporário ({shown_path(record.op.path, ref.workdir)}) fica em outra pasta, "
                        f"não na de {shown_path(record.op.target, ref.workdir)}. "
                        "Entre pastas de sistemas de arquivos diferentes, a troca de nome vira uma cópia e deixa de ser atômica: "
                        "crie o temporário na mesma pasta do checkpoint.",
                    )
                if record.unflushed:
                    return CriterionResult(
                        cid, False,
                        f"{_name(record.op.path)} foi renomeado para {_name(record.op.target)} ainda aberto, com "
                        f"{record.unflushed} bytes só no buffer do Python: numa queda logo depois da troca, o checkpoint "
                        "fica incompleto. Feche (ou dê flush) no temporário antes do os.replace.",
                    )
                if not record.fsynced:
                    hint = (
                        "Dica: sem os.fsync no temporário antes do os.replace, a troca já protege contra o processo morto; "
                        "contra falta de energia, chame f.flush() e os.fsync(f.fileno()) antes de fechar."
                    )
        first = None
        for plan, run in crashes:
            failure = self._crash_failure(ref, plan, ref.trace.ops[plan.op_index - 1], run)
            if failure is None:
                continue
            had_one, result = failure
            if had_one:
                return result  # the most telling case: a complete checkpoint existed and was destroyed
            first = first or result
        if first is not None:
            return first
        return CriterionResult(cid, True, hint=hint)

    def _crash_failure(self, ref: Run, plan: CrashPlan, op: Op, run: Run):
        cid = "escrita-atomica"
        label = crash_label(op, plan.torn_at, self.total)
        content = run.files.get(self.path)
        # Compared with this same run: code whose output varies (a timestamp) is judged fairly.
        complete = self._complete_before(run, plan.op_index)
        if run.bypasses:
            return bool(complete), CriterionResult(
                cid, False, f"{label}: o código mexeu em arquivos por fora do simulador ({run.bypasses[0]})."
            )
        if content is None:
            if not complete:
                return None
            return True, CriterionResult(
                cid, False,
                f"{label}: o {self.path} sumiu do disco, embora um checkpoint completo já tivesse sido gravado. "
                "Na retomada, não haveria de onde continuar.",
                disk=disk_view(label, self.path, None),
            )
        try:
            value = parse(content)
        except ValueError:
            earlier = (
                "e a versão anterior, que estava completa, já tinha sido apagada"
                if complete else "e não há versão anterior para onde recuar"
            )
            return bool(complete), CriterionResult(
                cid, False,
                f"{label}: o {self.path} {left_on_disk(content)} — não é um JSON completo. "
                f"Na retomada, json.loads falharia, {earlier}.",
                disk=disk_view(label, self.path, content),
            )
        if canonical(value) not in complete:
            return bool(complete), CriterionResult(
                cid, False,
                f"{label}: o {self.path} abre, mas não é nenhum dos checkpoints completos gravados até ali "
                f"(é uma mistura: {protocol.brief(value, 80)}).",
                disk=disk_view(label, self.path, content),
            )
        return None

    # --- ponto-a ----------------------------------------------------------------------------

    def check_point_a(self, ref: Run, by_plan: dict) -> CriterionResult:
        cid = "ponto-a"
        tool_ops = [op for op in ref.trace.ops if op.kind == "tool"]
        turn_of = {u["name"]: k for k, u in enumerate(self.tool_uses, start=1)}
        if sorted({op.path for op in tool_ops}) != sorted(turn_of):
            return CriterionResult(cid, False, "Não dá para verificar o ponto A: run_agent não executou as duas ferramentas do roteiro.")
        for op in tool_ops:
            k = turn_of[op.path]
            block = self.tool_uses[k - 1]
            expected = {"id": block["id"], "name": block["name"], "input": block["input"]}
            label = f"Queda simulada durante execute_tool('{block['name']}') (turno {k})"
            run = by_plan.get(CrashPlan(op.index))
            content = run.files.get(self.path) if run else None
            if content is None:
                return CriterionResult(
                    cid, False,
                    f"{label}: não havia nenhum {self.path} em disco — a chamada em andamento não deixou rastro. "
                    "Grave o ponto A (pendingToolUse preenchido) antes de chamar execute_tool.",
                    disk=disk_view(label, self.path, None),
                )
            try:
                state = parse(content)
            except ValueError:
                return CriterionResult(
                    cid, False, f"{label}: o {self.path} em disco {left_on_disk(content)} — não é um JSON completo.",
                    disk=disk_view(label, self.path, content),
                )
            pending = state.get("pendingToolUse", "ausente") if isinstance(state, dict) else "ausente"
            turns = state.get("turns") if isinstance(state, dict) else None
            if pending in (None, "ausente"):
                shown = "null" if pending is None else "ausente"
                return CriterionResult(
                    cid, False,
                    f"{label}: o {self.path} em disco tem pendingToolUse = {shown} e turns = {protocol.brief(turns)}, "
                    "então a chamada em andamento não deixou rastro. Grave o ponto A — pendingToolUse = "
                    "{id, name, input} do bloco — depois de extrair block e antes de execute_tool.",
                    disk=disk_view(label, self.path, content),
                )
            if pending != expected:
                return CriterionResult(
                    cid, False,
                    f"{label}: pendingToolUse em disco é {protocol.brief(pending, 120)}, mas a ferramenta em andamento "
                    f"era {protocol.brief(expected, 120)} (só id, name e input do bloco).",
                    disk=disk_view(label, self.path, content),
                )
            if turns != k - 1:
                return CriterionResult(
                    cid, False,
                    f"{label}: o checkpoint registra a chamada pendente, mas com turns = {protocol.brief(turns)}; "
                    f"antes desta ferramenta terminar, {k - 1} ferramenta(s) tinham sido concluídas.",
                    disk=disk_view(label, self.path, content),
                )
        # Point B: after each tool, a checkpoint with the result recorded and nothing pending.
        last_calls = [op for n, op in enumerate(tool_ops) if all(o.path != op.path for o in tool_ops[n + 1:])]
        for n, op in enumerate(last_calls):
            k = turn_of[op.path]
            end = last_calls[n + 1].index if n + 1 < len(last_calls) else len(ref.snapshots) - 1
            states = []
            for snap in ref.snapshots[op.index + 1: end + 1]:
                try:
                    states.append(parse(snap.get(self.path)))
                except ValueError:
                    continue
            if not any(isinstance(s, dict) and s.get("pendingToolUse") is None and s.get("turns") == k for s in states):
                last = states[-1] if states else None
                seen = (
                    f"o último tinha pendingToolUse = {protocol.brief(last.get('pendingToolUse'))} e turns = {protocol.brief(last.get('turns'))}"
                    if isinstance(last, dict) else "nenhum checkpoint foi gravado nesse trecho"
                )
                return CriterionResult(
                    cid, False,
                    f"Depois que {self.tool_uses[k - 1]['name']} terminou, nenhum checkpoint gravou o ponto B "
                    f"(pendingToolUse = null e turns = {k}) antes {'da próxima ferramenta' if n + 1 < len(last_calls) else 'do fim'}: {seen}.",
                )
        return CriterionResult(cid, True)

    # --- seis-campos ----------------------------------------------------------------------

    def check_fields(self, ref: Run) -> CriterionResult:
        cid = "seis-campos"
        conversation = ref.world.model_calls[-1]["messages"] if ref.world.model_calls else []
        seen = set()
        for index, snap in enumerate(ref.snapshots[1:], start=1):
            content = snap.get(self.path)
            try:
                state = parse(content)
            except ValueError:
                continue
            key = canonical(state)
            if key in seen:
                continue
            seen.add(key)
            found = protocol.problems(state, task=TASK, conversation=conversation, tokens_emitted=ref.world.tokens_emitted)
            if found:
                when = (
                    f"No checkpoint em disco antes da operação {index} ({describe_op(ref.trace.ops[index - 1])})"
                    if index <= len(ref.trace.ops) else "No checkpoint deixado no fim da execução"
                )
                return CriterionResult(
                    cid, False, f"{when}: " + "; ".join(found) + ".",
                    disk=disk_view(when, self.path, content),
                )
        if not seen:
            return CriterionResult(cid, False, "Nenhum checkpoint completo foi gravado durante a execução.")
        return CriterionResult(cid, True)


def grade_code(source: str, filename: str = "solucao.py") -> tuple[dict[str, CriterionResult], str]:
    grader = Nivel2Grader(source, filename)
    results = grader.grade()
    return results, grader.output.getvalue()
