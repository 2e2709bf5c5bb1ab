"""Judge the code of `nivel-2` from one traced run: every crash state of graders.replay, read as a
resume would read `checkpoint.json` in the work folder, under a killed process and a power loss."""

from __future__ import annotations

import functools
import json
import posixpath

from . import protocol
from ..fake_agent import TASK, script
from ..replay.states import MODEL, START, TOOL, TORN, State, cut_content, cuts, replay, torn
from ..trace.ops import Trace
from .verdict import CriterionResult

CHECKPOINT = "checkpoint.json"
# The files judged, as the statement names them: checkpoint.json in the folder the code runs in, and
# checkpoints/checkpoint.json (the lesson's own save_checkpoint writes there). Each one the run writes
# is judged; any other file (history copies, archives, other names) is not.
JUDGED = (("checkpoint.json",), ("checkpoints", "checkpoint.json"))
CODE_CRITERIA = ("escrita-atomica", "ponto-a", "seis-campos", "executavel")
TITLES = {"executavel": "O código corrigido roda até o fim"}
ORDINAL = {1: "1ª", 2: "2ª", 3: "3ª", 4: "4ª"}
FS_KINDS = ("open", "write", "truncate", "rename", "unlink", "rmdir", "mkdir", "link", "symlink", "fsync", "sync")


def job() -> dict:
    return {"function": "run_agent", "task": TASK, "tools": script()["tools"],
            "missing": "não encontrei a função `run_agent(task, tools, call_model, execute_tool)` no código"}


# --- reading what a resume would find ----------------------------------------------------------------


def parse(content: bytes | None):
    """The JSON document in `content`, or raise ValueError (what a resume's json.loads would hit)."""
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
    """The canonical form of a complete checkpoint; None when it would not load."""
    try:
        return canonical(parse(content))
    except (ValueError, UnicodeDecodeError):
        return None


def left_on_disk(content: bytes) -> str:
    """`ficou com N bytes, terminando em “…”`: the end of a file says where a write was cut."""
    if not content:
        return "ficou vazio (0 bytes)"
    text = content.decode("utf-8", "replace").replace("\n", " ")
    tail = text[-60:] if len(text) > 60 else text
    return f"ficou com {len(content)} bytes, terminando em “…{tail}”"


def disk_view(crash: str, path: str, content: bytes | None) -> dict:
    """The page's disk view of one crash: what the file held, if it existed."""
    view = {"crash": crash, "path": path, "exists": content is not None}
    if content is not None:
        view["bytes"] = len(content)
        view["content"] = content[:4000].decode("utf-8", "replace")
    return view


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


# --- the crash points, numbered once for messages and the timeline ----------------------------------


class Point:
    """A crash state as the student sees it: numbered, grouped (A1, ferramenta 1, B1…) and described."""

    __slots__ = ("n", "state", "op", "group", "where")

    def __init__(self, state: State, op: int, group: str, where: str):
        self.n = 0
        self.state = state
        self.op = op
        self.group = group
        self.where = where


class Paths:
    """Paths as the student thinks of them: relative to the work folder, or named by their root."""

    def __init__(self, trace: Trace):
        self.roots = sorted(((posixpath.normpath(r.path), r.role) for r in trace.roots), key=lambda x: -len(x[0]))

    def show(self, path: str) -> str:
        path = posixpath.normpath(path) if path else path
        for root, role in self.roots:
            if path.startswith(root.rstrip("/") + "/"):
                rest = path[len(root.rstrip("/")) + 1:]
                if role == "work":
                    return rest
                if role == "tmp":
                    return f"{rest}, na pasta temporária do sistema"
                return f"~/{rest}" if role == "home" else path
        return path or "?"

    def name(self, path: str) -> str:
        return posixpath.basename(path) or path


def judge(trace: Trace, power_graded: bool = False) -> tuple[dict[str, CriterionResult], "Nivel2Judge"]:
    """Judge every named checkpoint the run wrote; the first one written is the one the timeline shows."""
    judges = [Nivel2Judge(trace, power_graded, parts) for parts in JUDGED]
    written = [j for j in judges if j.written()] or judges[:1]
    primary = written[0]
    results = primary.grade()
    for other in written[1:]:
        for cid, result in other.grade().items():
            if results[cid].passed and not result.passed:
                results[cid] = result
    return results, primary


class Nivel2Judge:
    def __init__(self, trace: Trace, power_graded: bool = False, parts: tuple[str, ...] = JUDGED[0]):
        self.trace = trace
        self.parts = parts
        self.power_graded = power_graded
        conversation = script()
        self.tool_uses = conversation["tool_uses"]
        self.responses = conversation["responses"]
        self.tool_results = conversation["tool_results"]
        self.outputs = [r["usage"]["output_tokens"] for r in self.responses]
        self.models = [e for e in trace.events if e.kind == "model"]
        self.tools = [e for e in trace.events if e.kind == "tool"]
        self.paths = Paths(trace)
        self.points: list[Point] = []
        self.outcomes: dict[int, tuple[str, str]] = {}  # point n -> (criterion, message), process death
        self.power_outcomes: dict[int, str] = {}        # point n -> advice, power loss
        self.cited: set[int] = set()                    # points a criterion's message names
        self.shown = "/".join(parts)
        self.replay = None
        self.names = _names(trace.events)

    def written(self) -> bool:
        """Did this file exist at any moment of the run?"""
        if self.replay is None:
            self.replay = replay(self.trace, self.parts, len(self.responses))
        return any(s.content is not None or s.kind == TORN for s in self.replay.states)

    # --- the whole verdict -------------------------------------------------------------------

    def grade(self) -> dict[str, CriterionResult]:
        results = {"executavel": self.check_runs()}
        blocker = self._blocker()
        if blocker:
            for c in ("escrita-atomica", "ponto-a", "seis-campos"):
                results[c] = CriterionResult(c, False, blocker)
            return {c: results[c] for c in CODE_CRITERIA}
        self.written()
        self._number()
        results["escrita-atomica"] = self.check_atomic()
        results["ponto-a"] = self.check_points()
        results["seis-campos"] = self.check_fields()
        advice = self.check_power(failed={c for c, r in results.items() if not r.passed})
        if advice:
            criterion, message = advice
            if self.power_graded:
                results[criterion] = CriterionResult(criterion, False, message)
            else:
                results[criterion].hint = message
        return {c: results[c] for c in CODE_CRITERIA}

    def _blocker(self) -> str:
        trace = self.trace
        report = trace.report or {}
        if report.get("phase") == "load" and report.get("kind") not in (None, "ok"):
            return f"Não dá para avaliar: {self._failure_text() or 'o código não carregou'}."
        if report.get("kind") == "missing":
            return f"Não dá para avaliar: {job()['missing']}."
        if len(self.models) < len(self.responses):
            why = self._end_text() if trace.end != "exit" else ""
            return ("Não dá para avaliar as quedas: run_agent não chegou à resposta final do modelo"
                    + (f" ({why})" if why else f" (veja “{TITLES['executavel']}”)") + ".")
        if not self.written():
            return (f"run_agent terminou sem gravar {CHECKPOINT} na pasta em que roda (nem em checkpoints/{CHECKPOINT}): "
                    "é esse o arquivo que a retomada lê e que o corretor julga.")
        return ""

    # --- executavel: trusted facts only ----------------------------------------------------------

    def _end_text(self) -> str:
        trace = self.trace
        limits = trace.limits or {}
        return {
            "timeout": "tempo esgotado — o código não terminou no tempo permitido (provavelmente um laço infinito)",
            "flood": "saída demais: o código imprimiu muito mais do que alguém conseguiria ler e foi parado "
                     "(tire os print de dentro dos laços)",
            "runaway": "limite do corretor: " + (_text(limits.get("message")) or
                       "o código chamou o modelo, as ferramentas ou o disco muito mais vezes do que o roteiro prevê"),
            "protocol": "o processo mandou pedidos ilegíveis ao modelo falso",
            "broken": _text(limits.get("message")) or "o processo de correção falhou (não é culpa do código; tente de novo)",
            "signal": f"o processo foi encerrado pelo sinal {trace.code}",
        }.get(trace.end, "")

    def _failure_text(self) -> str:
        from .errors import describe

        return describe(self.trace.report or {})

    def check_runs(self) -> CriterionResult:
        cid = "executavel"
        trace = self.trace
        refused = [e for e in trace.events if e.kind == "refused"]
        if (trace.report or {}).get("kind") == "missing":
            return CriterionResult(cid, False, f"O código não roda: {job()['missing']}.")
        if not trace.ended_cleanly:
            why = self._end_text() if trace.end != "exit" else (self._failure_text() or f"o processo terminou com o código {trace.code}")
            if refused:
                why += "; antes, " + _text((refused[0].payload or {}).get("message")).rstrip(".")
            return CriterionResult(cid, False, f"run_agent não chegou ao fim: {why.rstrip('.')}.")
        if (trace.report or {}).get("kind") != "ok":
            # Status 0 without run_agent returning: the code ended the process itself (os._exit...).
            return CriterionResult(cid, False, "run_agent não retornou: o processo terminou antes, encerrado pelo "
                                               "próprio código (por exemplo, com os._exit).")
        if len(self.models) != len(self.responses):
            return CriterionResult(
                cid, False,
                f"O modelo falso foi chamado {plural(len(self.models), 'vez', 'vezes')}; o roteiro tem "
                f"{len(self.responses)} chamadas (duas ferramentas e a resposta final).",
            )
        expected = [(u["name"], u["input"]) for u in self.tool_uses]
        called = [((e.payload or {}).get("name"), (e.payload or {}).get("input")) for e in self.tools]
        if called != expected:
            return CriterionResult(
                cid, False,
                f"execute_tool foi chamado com {protocol.brief(called, 160)}; o esperado era buscar_tickets e "
                "depois gravar_tabela, cada uma com o input que o modelo pediu.",
            )
        problem = self._conversation_problem()
        if problem:
            return CriterionResult(cid, False, problem)
        return CriterionResult(cid, True)

    def _conversation_problem(self) -> str:
        calls = [(e.payload or {}).get("messages") for e in self.models]
        first = calls[0]
        if not isinstance(first, list) or not first or not isinstance(first[0], dict) or first[0].get("role") != "user":
            return "Na 1ª chamada, o modelo deveria receber a tarefa como mensagem do usuário."
        for k in range(1, len(calls)):
            sent, before = calls[k], calls[k - 1]
            block = self.tool_uses[k - 1]
            where = f"Na {ORDINAL.get(k + 1, f'{k + 1}ª')} chamada ao modelo"
            if not isinstance(sent, list) or sent[: len(before)] != before:
                return f"{where}, o histórico anterior de messages não foi mantido."
            new = sent[len(before):]
            if len(new) != 2:
                return (f"{where}, messages deveria ter 2 mensagens novas (a resposta do assistente e a do usuário "
                        f"com o tool_result), mas tem {len(new)}.")
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
                return (f"{where}, falta o resultado de {block['name']} como bloco tool_result "
                        f"(tool_use_id “{block['id']}”) numa mensagem do usuário.")
        return ""

    # --- numbering the crash points ----------------------------------------------------------------

    def _number(self):
        """One list of crash points, numbered once: messages and the timeline cite the same numbers."""
        events = self.trace.events
        op_of, count = {}, 0
        for i, e in enumerate(events):
            if e.kind in FS_KINDS:
                count += 1
                op_of[i] = count
        self.total_ops = count
        for state in self.replay.states:
            if state.kind == TORN:
                for k, content in self._torn_representatives(state):
                    self._add(torn(state, k, content), op_of.get(state.first, 0))
            else:
                self._add(state, op_of.get(state.first, 0))
        for n, point in enumerate(self.points, start=1):
            point.n = n
        self.total = len(self.points)

    def _add(self, state: State, op: int):
        self.points.append(Point(state, op, self._group(state), self._where(state)))

    def _torn_representatives(self, state: State):
        """Every cut of the write is judged here, in order, up to the first that leaves a file no resume
        could load; the timeline keeps that one, the first, the middle and the last."""
        earlier = {complete_key(p.state.content) for p in self.points if p.state.kind != TORN}
        earlier.discard(None)
        first = bad = None
        for k, content in cuts(state):
            first = first or (k, content)
            if complete_key(content) not in earlier:
                bad = (k, content)
                break
        if first is None:
            return []  # the write put back the bytes that were there: nothing to tear
        keep = dict([first] + ([bad] if bad else []))
        size = len(state.event.data)
        for k in (size // 2, size - 1):
            if k > first[0] and k not in keep:
                keep[k] = cut_content(state, k)
        return sorted(keep.items())

    def _group(self, state: State) -> str:
        """The part of the loop: início, A1 (the model asked for tool 1, not run yet), ferramenta 1,
        B1 (it ran, before the next model call), modelo 2 (during that call)…, fim."""
        if state.kind == TOOL:
            return f"ferramenta {state.tools}"
        if state.kind == MODEL:
            return f"modelo {state.served + 1}"
        if state.served == 0:
            return "início"
        if state.served >= len(self.responses):
            return "fim"
        if state.tools < state.served:
            return f"A{state.served}"
        return f"B{state.tools}"

    def _where(self, state: State) -> str:
        if state.kind == START:
            return "antes de qualquer operação de arquivo"
        if state.kind == TOOL:
            return f"durante execute_tool('{(state.event.payload or {}).get('name')}')"
        if state.kind == MODEL:
            return f"durante a {ORDINAL.get(state.served + 1, f'{state.served + 1}ª')} chamada ao modelo"
        if state.kind == TORN:
            ev = state.event
            path = ev.path or self.names.get(id(ev), "")
            return (f"no meio da escrita de {plural(len(ev.data), 'byte', 'bytes')} em {self.paths.name(path) or self.shown}, "
                    f"depois de {plural(state.torn_at, 'byte', 'bytes')}")
        first = self.trace.events[state.first]
        text = f"logo depois {self.what(first)}"
        if state.last != state.first:
            last = self.trace.events[state.last]
            text += f" (e até {_article(self.what(last))})"
        return text

    def what(self, ev) -> str:
        """An event as a noun phrase: “da escrita de 120 bytes em x”."""
        path = ev.path or self.names.get(id(ev), "")
        name = self.paths.name(path) if path else "?"
        return {
            "open": f"da abertura de {name} para escrita" + (" (criado agora)" if ev.created else "")
                    + (", que o esvaziou" if ev.trunc else ""),
            "write": f"da escrita de {plural(len(ev.data), 'byte', 'bytes')} em {name}",
            "truncate": f"do truncamento de {name} para {plural(ev.length, 'byte', 'bytes')}",
            "rename": f"da troca de nome de {name} para {self.paths.name(ev.path2)}",
            "unlink": f"da remoção de {name}",
            "rmdir": f"da remoção da pasta {name}",
            "mkdir": f"da criação da pasta {name}",
            "link": f"do link {name}",
            "symlink": f"do link simbólico {name}",
            "fsync": f"do os.fsync de {name}",
            "sync": "do os.sync",
        }.get(ev.kind, f"da operação {ev.kind} em {name}")

    def label(self, point: Point) -> str:
        return f"Queda {point.n} de {self.total}, {point.where}"

    # --- escrita-atomica: a killed process -------------------------------------------------------

    def check_atomic(self) -> CriterionResult:
        cid = "escrita-atomica"
        mismatch = self._final_mismatch()
        if mismatch:
            return CriterionResult(cid, False, mismatch)
        complete: set[str] = set()
        first = None
        for point in self.points:
            failure = self.atomic_failure(point, complete)
            state = point.state
            if state.kind != TORN:
                key = complete_key(state.content)
                if key is not None:
                    complete.add(key)
            if failure is None:
                continue
            telling, result = failure
            self.outcomes[point.n] = (cid, result.message)
            if telling and (first is None or not first[0]):
                first = (True, result, point.n)
            elif first is None:
                first = (False, result, point.n)
        if first is not None:
            self.cited.add(first[2])
            return first[1]
        return CriterionResult(cid, True)

    def atomic_failure(self, point: Point, complete: set):
        cid = "escrita-atomica"
        state = point.state
        label = self.label(point)
        content = state.content
        if content is None:
            if not complete or state.finished:
                return None  # nothing saved yet, or the task had ended: removing it is allowed
            return True, CriterionResult(
                cid, False,
                f"{label}: o {self.shown} sumiu do disco, embora um checkpoint completo já tivesse sido gravado. "
                "Na retomada, não haveria de onde continuar.",
                disk=disk_view(label, self.shown, None),
            )
        key = complete_key(content)
        if key is None:
            earlier = ("e a versão anterior, que estava completa, já não existia"
                       if complete else "e não havia versão anterior para onde recuar")
            return bool(complete), CriterionResult(
                cid, False,
                f"{label}: o {self.shown} {left_on_disk(content)} — não é um JSON completo. "
                f"Na retomada, json.loads falharia (JSONDecodeError ou UnicodeDecodeError), {earlier}.",
                disk=disk_view(label, self.shown, content),
            )
        if state.kind == TORN and key not in complete:
            return bool(complete), CriterionResult(
                cid, False,
                f"{label}: o {self.shown} abre, mas não é nenhum dos checkpoints completos gravados até ali "
                f"(é uma mistura da versão antiga com a nova: {protocol.brief(parse(content), 80)}).",
                disk=disk_view(label, self.shown, content),
            )
        return None

    def _final_mismatch(self) -> str:
        """The real folders after the run must be what the observed calls made of them."""
        final = self.trace.final
        if final is None:
            return ""
        model = self.replay.folder.files()
        for path in sorted(set(final) | set(model)):
            if final.get(path, b"\0absent") != model.get(path, b"\0absent"):
                shown = self.paths.show(path)
                return (f"Ao fim da execução, {shown} em disco não é o que as chamadas de arquivo observadas explicam: "
                        "o código mudou o disco por um caminho que o corretor não acompanha. "
                        "Grave o checkpoint com open/os/pathlib e troque-o com os.replace.")
        return ""

    # --- ponto-a: A during each tool, B during the next model call ---------------------------------

    def expected_pending(self, name) -> dict | None:
        block = next((u for u in self.tool_uses if u["name"] == name), None)
        return {key: block[key] for key in ("id", "name", "input")} if block else None

    def check_points(self) -> CriterionResult:
        cid = "ponto-a"
        names = [(e.payload or {}).get("name") for e in self.tools]
        if sorted(set(n for n in names if isinstance(n, str))) != sorted(u["name"] for u in self.tool_uses):
            return CriterionResult(cid, False, "Não dá para verificar o ponto A: run_agent não executou as duas ferramentas do roteiro.")
        first = None
        for point in self.points:
            failure = self.point_failure(point, point.state.content)
            if failure:
                self.outcomes.setdefault(point.n, (cid, failure))
                if first is None:
                    self.cited.add(point.n)
                    first = CriterionResult(cid, False, failure, disk=disk_view(self.label(point), self.shown, point.state.content))
        return first or CriterionResult(cid, True)

    def point_failure(self, point: Point, content: bytes | None, power: str = "") -> str:
        """What breaks point A (during a tool) or point B (during the next model call) here; "" if fine."""
        state = point.state
        if state.kind == TOOL:
            name = (state.event.payload or {}).get("name")
            expected = self.expected_pending(name)
            if expected is None:
                return ""
            label = self.label(point) + power
            if content is None:
                return (f"{label}: não havia nenhum {self.shown} em disco — a chamada em andamento não deixou rastro. "
                        "Grave o ponto A (pendingToolUse preenchido) antes de chamar execute_tool.")
            try:
                saved = parse(content)
            except (ValueError, UnicodeDecodeError):
                return f"{label}: o {self.shown} em disco {left_on_disk(content)} — não é um JSON completo."
            pending = saved.get("pendingToolUse", "ausente") if isinstance(saved, dict) else "ausente"
            if pending in (None, "ausente"):
                return (f"{label}: o {self.shown} em disco tem pendingToolUse = {'null' if pending is None else 'ausente'}, "
                        "então a chamada em andamento não deixou rastro. Grave o ponto A — pendingToolUse = "
                        "{id, name, input} do bloco — depois de extrair block e antes de execute_tool.")
            if not isinstance(pending, dict) or any(pending.get(k) != expected[k] for k in expected):
                return (f"{label}: pendingToolUse em disco é {protocol.brief(pending, 120)}, mas a ferramenta em "
                        f"andamento era {protocol.brief(expected, 120)}.")
            return ""
        if state.kind == MODEL and 1 <= state.served < len(self.responses):
            block = self.tool_uses[state.served - 1]  # what the previous reply asked for
            label = self.label(point) + power
            try:
                saved = parse(content)
            except (ValueError, UnicodeDecodeError):
                saved = None
            if not isinstance(saved, dict) or saved.get("pendingToolUse") is not None or not _has_result(saved, block["id"]):
                seen = ("não havia checkpoint legível" if saved is None else
                        f"o checkpoint em disco tinha pendingToolUse = {protocol.brief(saved.get('pendingToolUse'), 80)}"
                        if isinstance(saved, dict) else "o checkpoint em disco não era um objeto")
                if isinstance(saved, dict) and saved.get("pendingToolUse") is None and not _has_result(saved, block["id"]):
                    seen = f"o checkpoint em disco ainda não tinha o resultado de {block['name']} em messages"
                return (f"{label}: {seen}. Depois que {block['name']} termina, grave o ponto B — o resultado em messages "
                        "e pendingToolUse = None — antes de chamar o modelo de novo.")
        return ""

    # --- seis-campos: every state saved, one tokensUsed convention --------------------------------

    def tokens(self, served: int) -> dict[str, int]:
        total = sum(self.outputs[:served])
        return {"com a primeira resposta": total, "sem a primeira resposta": total - self.outputs[0] if served else 0}

    def check_fields(self) -> CriterionResult:
        cid = "seis-campos"
        conversation = (self.models[-1].payload or {}).get("messages") if self.models else []
        conversation = conversation if isinstance(conversation, list) else []
        seen: set[str] = set()
        conventions = {"com a primeira resposta", "sem a primeira resposta"}
        history = []
        for point in self.points:
            state = point.state
            if state.kind in (TORN,):
                continue
            key = complete_key(state.content)
            if key is None or key in seen:
                continue
            seen.add(key)
            saved = parse(state.content)
            expected = self.tokens(state.served)
            found = protocol.problems(saved, task=TASK, conversation=conversation, tokens_allowed=set(expected.values()))
            when = f"No checkpoint em disco na queda {point.n} de {self.total} ({point.where})"
            self.cited.add(point.n)
            if found:
                return CriterionResult(cid, False, f"{when}: " + "; ".join(found) + ".",
                                       disk=disk_view(when, self.shown, state.content))
            if isinstance(saved, dict) and isinstance(saved.get("tokensUsed"), int):
                fits = {name for name, value in expected.items() if value == saved["tokensUsed"]}
                history.append((point, saved["tokensUsed"], expected))
                conventions &= fits
                if not conventions:
                    before = ", ".join(f"{t} (queda {p.n})" for p, t, _ in history[:-1][-3:])
                    return CriterionResult(
                        cid, False,
                        f"{when}: tokensUsed = {saved['tokensUsed']}, mas os checkpoints anteriores ({before}) contavam de outro "
                        "jeito. tokensUsed é a soma de usage.output_tokens das respostas recebidas: conte sempre do mesmo "
                        "jeito (somando ou não a primeira resposta), sem recomeçar nem trocar a soma por uma atribuição.",
                        disk=disk_view(when, self.shown, state.content))
        if not seen:
            return CriterionResult(cid, False, "Nenhum checkpoint completo foi gravado durante a execução.")
        return CriterionResult(cid, True)

    # --- falta de energia: the persistence model ---------------------------------------------------

    def check_power(self, failed: set = frozenset()):
        """The first thing a power loss could break, as (criterion, advice), or None. Only where a killed
        process would have been fine: what already fails is not repeated as advice."""
        found = None
        for point in self.points:
            state = point.state
            if not state.power or complete_key(state.content) is None and state.content is not None:
                continue
            for view, content in (("durable", state.durable), ("kept", state.kept)):
                if "escrita-atomica" not in failed and content is not None and complete_key(content) is None:
                    message = self._power_unreadable(point, content)
                    self.power_outcomes.setdefault(point.n, message)
                    if found is None:
                        self.cited.add(point.n)
                        found = ("escrita-atomica", message)
                    continue
                if "ponto-a" in failed or self.point_failure(point, state.content):
                    continue
                problem = self.point_failure(point, content, power=" (numa falta de energia)")
                if problem:
                    message = problem + " " + self._power_why(state)
                    self.power_outcomes.setdefault(point.n, message)
                    if found is None:
                        self.cited.add(point.n)
                        found = ("ponto-a", message)
        return found

    def _power_unreadable(self, point: Point, content: bytes) -> str:
        label = self.label(point)
        renamed = self._renamed_into_place(point.state.first)
        why = ("a troca de nome pode chegar ao disco antes dos dados do arquivo temporário. Antes de trocar, chame "
               "f.flush() e os.fsync(f.fileno()) no temporário" if renamed else
               "o que não foi sincronizado com os.fsync pode se perder. Chame f.flush() e os.fsync(f.fileno()) "
               "antes de considerar a gravação feita")
        return f"Numa falta de energia ({label}), o {self.shown} poderia ficar {left_on_disk(content)[6:]}: {why}."

    def _renamed_into_place(self, index: int) -> bool:
        """Did the judged file's current node arrive by a rename (a temporary moved into place)?"""
        for ev in reversed(self.trace.events[: index + 1]):
            if ev.ok and ev.kind == "rename" and posixpath.basename(ev.path2) == self.parts[-1]:
                return True
            if ev.ok and ev.kind == "open" and ev.created and ev.name == self.parts[-1]:
                return False
        return False

    def _power_why(self, state: State) -> str:
        if state.durable != state.content and state.kept == state.content:
            return ("A troca de nome (ou a criação do arquivo) só fica garantida no disco depois de um os.fsync na "
                    "pasta: abra-a com os.open(pasta, os.O_RDONLY) e chame os.fsync nela depois da troca "
                    "(em POSIX; no Windows isso não existe).")
        return ("Os dados só ficam garantidos no disco depois de os.fsync no arquivo, e a troca de nome depois de "
                "os.fsync na pasta.")


def _names(events) -> dict[int, str]:
    """The path each descriptor-based event acted on (by event identity), from the node's last name:
    a tap may name only the calls that take a path."""
    latest: dict[int, str] = {}
    found: dict[int, str] = {}
    for ev in events:
        if not ev.ok:
            continue
        if ev.kind in ("open", "mkdir", "symlink", "link") and ev.path:
            latest[ev.node] = ev.path
        elif ev.kind == "rename" and ev.path2:
            latest[ev.node] = ev.path2
        elif ev.kind in ("write", "truncate", "fsync") and not ev.path and ev.node in latest:
            found[id(ev)] = latest[ev.node]
    return found


def _has_result(state: dict, tool_use_id: str) -> bool:
    messages = state.get("messages")
    return isinstance(messages, list) and any(
        isinstance(m, dict) and isinstance(m.get("content"), list)
        and any(isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") == tool_use_id for b in m["content"])
        for m in messages
    )


def _article(phrase: str) -> str:
    """“da escrita…” → “a escrita…”, “do fechamento…” → “o fechamento…”."""
    return phrase[1:] if phrase.startswith(("da ", "do ")) else phrase


def _text(value) -> str:
    return value[:500] if isinstance(value, str) else ""
