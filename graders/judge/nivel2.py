"""Judge the code of `nivel-2` from one traced run: every crash state of graders.replay, read as a
resume would read `checkpoint.json` in the work folder, under a killed process and a power loss."""

from __future__ import annotations

from . import protocol
from ..fake_agent import TASK, script
from ..replay.states import AFTER, MODEL, TOOL, TORN, replay
from ..trace.ops import Trace
from .ends import end_text, outlived_text, refused_text
from .points import ORDINAL, CrashPoints, Point
from .power import check_power
from .reading import (asks_for, complete_key, disk_view, has_result, left_on_disk, load_failure, parse, plural,
                      replies_in, result_ids, results_of)
from .verdict import CriterionResult

CHECKPOINT = "checkpoint.json"
# The files judged, as the statement names them: checkpoint.json in the folder the code runs in, and
# checkpoints/checkpoint.json (the lesson's own save_checkpoint writes there). Each one the run writes
# is judged; any other file (history copies, archives, other names) is not.
JUDGED = (("checkpoint.json",), ("checkpoints", "checkpoint.json"))
CODE_CRITERIA = ("escrita-atomica", "ponto-a", "seis-campos", "executavel")
TITLES = {"executavel": "O código roda até o fim"}


def job() -> dict:
    return {"function": "run_agent", "task": TASK, "tools": script()["tools"],
            "missing": "não encontrei a função `run_agent(task, tools, call_model, execute_tool)` no código"}


def judge(trace: Trace, power_graded: bool = False) -> tuple[dict[str, CriterionResult], "Nivel2Judge"]:
    """Judge every named checkpoint the run wrote; the first one written is the one the timeline shows."""
    judges = [Nivel2Judge(trace, power_graded, parts) for parts in JUDGED]
    written = [j for j in judges if j.written()] or judges[:1]
    if any(j.written_during_task() for j in written):
        # A judged name that first appears after the final reply, beside one the task saved to, is where
        # the finished checkpoint was archived (allowed): no tool ran while it existed.
        for j in written:
            j.archive_only = not j.written_during_task()
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
        self.crash: CrashPoints | None = None  # numbered once the run is known to be judgeable
        self.points: list[Point] = []
        self.total = self.total_ops = 0
        self.outcomes: dict[int, tuple[str, str]] = {}  # point n -> (criterion, message), process death
        self.power_outcomes: dict[int, str] = {}        # point n -> advice, power loss
        self.cited: set[int] = set()                    # points a criterion's message names
        self.archive_only = False  # first written after the final reply, beside a file the task saved to
        self.shown = "/".join(parts)
        self.replay = None

    def written(self) -> bool:
        """Did this file exist at any moment of the run?"""
        if self.replay is None:
            self.replay = replay(self.trace, self.parts, len(self.responses))
        return any(s.content is not None or s.kind == TORN for s in self.replay.states)

    def written_during_task(self) -> bool:
        """Did this file exist before the model's final reply?"""
        self.written()
        return any((s.content is not None or s.kind == TORN) and s.served < len(self.responses)
                   for s in self.replay.states)

    # --- the whole verdict -------------------------------------------------------------------

    def grade(self) -> dict[str, CriterionResult]:
        results = {"executavel": self.check_runs()}
        blocker = self._blocker()
        if blocker:
            for c in ("escrita-atomica", "ponto-a", "seis-campos"):
                results[c] = CriterionResult(c, False, blocker)
            return {c: results[c] for c in CODE_CRITERIA}
        self.written()
        self.crash = CrashPoints(self.trace, self.replay.states, len(self.responses), self.shown)
        self.points, self.total, self.total_ops = self.crash.points, self.crash.total, self.crash.total_ops
        results["escrita-atomica"] = self.check_atomic()
        results["ponto-a"] = self.check_points()
        results["seis-campos"] = self.check_fields()
        advice = check_power(self, failed={c for c, r in results.items() if not r.passed})
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
            # What the trusted side saw (too much output, the time limit...) before the runner's account.
            why = end_text(trace) if trace.end != "exit" else ""
            return f"Não dá para avaliar: {why or self._failure_text() or 'o código não carregou'}."
        if report.get("kind") == "missing":
            return f"Não dá para avaliar: {job()['missing']}."
        if len(self.models) < len(self.responses):
            why = end_text(trace) if trace.end != "exit" else ""
            return ("Não dá para avaliar as quedas: run_agent não chegou à resposta final do modelo"
                    + (f" ({why})" if why else f" (veja “{TITLES['executavel']}”)") + ".")
        if not self.written():
            return (f"run_agent terminou sem gravar {CHECKPOINT} no diretório em que roda (nem em checkpoints/{CHECKPOINT}): "
                    "é esse o arquivo que a retomada lê e que o corretor julga.")
        return ""

    # --- executavel: trusted facts only ----------------------------------------------------------

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
            why = end_text(trace) if trace.end != "exit" else (self._failure_text() or f"o processo terminou com o código {trace.code}")
            if refused:
                why += "; antes, " + _text((refused[0].payload or {}).get("message")).rstrip(".")
            returned = trace.end == "timeout" and (trace.report or {}).get("kind") == "ok"
            head = "run_agent voltou, mas a execução não terminou" if returned else "run_agent não chegou ao fim"
            return CriterionResult(cid, False, f"{head}: {why.rstrip('.')}.")
        if (trace.report or {}).get("kind") != "ok":
            # Status 0 without run_agent returning: the code ended the process itself (os._exit...).
            before = " antes mesmo da primeira chamada ao modelo" if not self.models else ""
            return CriterionResult(cid, False, f"run_agent não retornou: o processo terminou{before}, encerrado "
                                               "pelo próprio código (por exemplo, com os._exit).")
        if refused:
            return CriterionResult(cid, False, refused_text(trace))
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
        outlived = outlived_text(trace, "run_agent")
        if outlived:
            return CriterionResult(cid, False, outlived)
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
                and protocol.result_text(b.get("content")) == self.tool_results[block["name"]]
                for b in blocks
            )
            if not ok:
                return (f"{where}, falta o resultado de {block['name']} como bloco tool_result "
                        f"(tool_use_id “{block['id']}”) numa mensagem do usuário.")
        return ""

    # --- numbering the crash points ----------------------------------------------------------------

    # --- escrita-atomica: a killed process -------------------------------------------------------

    def check_atomic(self) -> CriterionResult:
        cid = "escrita-atomica"
        mismatch = self._final_mismatch()
        if mismatch:
            return CriterionResult(cid, False, mismatch)
        complete: set[str] = set()
        first = mapped = None
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
            if telling == "mapped":
                # Cited only when nothing else fails: a torn or emptied file says more to the student.
                mapped = mapped or (True, result, point.n)
                continue
            if telling and (first is None or not first[0]):
                first = (True, result, point.n)
            elif first is None:
                first = (False, result, point.n)
        first = first or mapped
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
            earlier = ("a versão anterior, que estava completa, já não existia"
                       if complete else "não havia versão anterior para onde recuar")
            return bool(complete), CriterionResult(
                cid, False,
                f"{label}: o {self.shown} {left_on_disk(content)} — não é um JSON completo. "
                f"Na retomada, {load_failure(content)}; {earlier}.",
                disk=disk_view(label, self.shown, content),
            )
        if state.kind == TORN and key not in complete:
            return bool(complete), CriterionResult(
                cid, False,
                f"{label}: o {self.shown} abre, mas não é nenhum dos checkpoints completos gravados até ali "
                f"(é uma mistura da versão antiga com a nova: {protocol.brief(parse(content), 80)}).",
                disk=disk_view(label, self.shown, content),
            )
        if state.mapped:
            # Last: what the mapping hides is any state at all, which the other checks cannot name.
            return "mapped", CriterionResult(
                cid, False,
                f"{label}: o {self.shown} estava mapeado na memória (mmap compartilhado e gravável) por um processo do "
                "código. Cada atribuição ao mapeamento muda o arquivo na hora, sem nenhuma chamada que o corretor veja, "
                "e uma queda no meio dela deixa qualquer mistura do conteúdo antigo com o novo. Preencha pelo mmap um "
                "arquivo temporário, feche o mapeamento e só então ponha o arquivo no lugar com os.replace.",
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
                shown = self.crash.paths.show(path)
                return (f"Ao fim da execução, {shown} em disco não é o que as chamadas de arquivo observadas explicam: "
                        "o código mudou o disco por um caminho que o corretor não acompanha. "
                        "Grave o checkpoint com open/os/pathlib e troque-o com os.replace.")
        return ""

    # --- ponto-a: A during each tool, B during the next model call ---------------------------------

    def label(self, point: Point) -> str:
        return self.crash.label(point)

    def expected_pending(self, name) -> dict | None:
        block = next((u for u in self.tool_uses if u["name"] == name), None)
        return {key: block[key] for key in ("id", "name", "input")} if block else None

    def holds_result(self, saved: dict, block: dict) -> bool:
        """Whether a saved state holds the result of `block`'s call: its tool_result, with what the tool returned."""
        return has_result(saved, block["id"], self.tool_results[block["name"]])

    def wrong_result(self, saved: dict, block: dict) -> str:
        """What stands where `block`'s result should be, in a message's words: a tool_result of it without
        what the tool returned, or one with another id; "" when there is no tool_result at all."""
        contents = results_of(saved, block["id"])
        if contents:
            return (f"o tool_result de {block['name']} em messages não tinha o que a ferramenta devolveu "
                    f"(content = {protocol.brief(contents[-1], 60)})")
        others = [i for i in result_ids(saved) if i not in {u["id"] for u in self.tool_uses}]
        if others:
            return (f"o tool_result em messages tinha tool_use_id = {protocol.brief(others[-1], 40)}, mas a chamada "
                    f"de {block['name']} era “{block['id']}”")
        return ""

    def check_points(self) -> CriterionResult:
        cid = "ponto-a"
        names = [(e.payload or {}).get("name") for e in self.tools]
        if sorted(set(n for n in names if isinstance(n, str))) != sorted(u["name"] for u in self.tool_uses):
            return CriterionResult(cid, False, "Não dá para verificar o ponto A: run_agent não executou as duas ferramentas do roteiro.")
        if self.archive_only:
            return CriterionResult(cid, True)  # the other judged file carried the task's points
        first = None
        recorded: dict[str, str] = {}  # tool_use id -> tool name, for results a crash state already held
        for point in self.points:
            failure = self.point_failure(point, point.state.content) or self.regression_failure(point, recorded)
            if failure:
                self.outcomes.setdefault(point.n, (cid, failure))
                if first is None:
                    self.cited.add(point.n)
                    first = CriterionResult(cid, False, failure, disk=disk_view(self.label(point), self.shown, point.state.content))
        return first or CriterionResult(cid, True)

    def point_failure(self, point: Point, content: bytes | None, power: str = "") -> str:
        """What breaks point A (during a tool) or point B (during the next model call) here; "" if fine.
        With `power` (the power-loss view), the code did save the point and a killed process would find
        it: the message then says so, instead of asking for a save that is already there."""
        state = point.state
        if state.kind == TOOL:
            name = (state.event.payload or {}).get("name")
            expected = self.expected_pending(name)
            if expected is None:
                return ""
            label = self.label(point) + power
            saved_but = ("O código gravou o ponto A, mas essa gravação ainda não estava garantida no disco."
                         if power else "")
            if content is None:
                return (f"{label}: não havia nenhum {self.shown} em disco — a chamada em andamento não deixou rastro. "
                        + (saved_but or "Grave o ponto A (pendingToolUse preenchido) antes de chamar execute_tool."))
            try:
                saved = parse(content)
            except (ValueError, UnicodeDecodeError):
                return f"{label}: o {self.shown} em disco {left_on_disk(content)} — não é um JSON completo."
            pending = saved.get("pendingToolUse", "ausente") if isinstance(saved, dict) else "ausente"
            if pending in (None, "ausente"):
                return (f"{label}: o {self.shown} em disco tem pendingToolUse = {'null' if pending is None else 'ausente'}, "
                        "então a chamada em andamento não deixou rastro. "
                        + (saved_but or "Grave o ponto A — pendingToolUse = {id, name, input} do bloco — depois de "
                                        "extrair block e antes de execute_tool."))
            if not isinstance(pending, dict) or any(pending.get(k) != expected[k] for k in expected):
                return (f"{label}: pendingToolUse em disco é {protocol.brief(pending, 120)}, mas a ferramenta em "
                        f"andamento era {protocol.brief(expected, 120)}.")
            return ""
        if state.kind == AFTER and state.since and 1 <= state.served < len(self.responses):
            return self.window_failure(point, content, power)
        if state.kind == AFTER and not state.since and 1 <= state.served < len(self.responses):
            return self.early_failure(point, content, power)
        if state.kind == MODEL and 1 <= state.served < len(self.responses):
            block = self.tool_uses[state.served - 1]  # what the previous reply asked for
            label = self.label(point) + power
            try:
                saved = parse(content)
            except (ValueError, UnicodeDecodeError):
                saved = None
            if not isinstance(saved, dict) or saved.get("pendingToolUse") is not None or not self.holds_result(saved, block):
                seen = ("não havia checkpoint legível" if saved is None else
                        f"o checkpoint em disco tinha pendingToolUse = {protocol.brief(saved.get('pendingToolUse'), 80)}"
                        if isinstance(saved, dict) else "o checkpoint em disco não era um objeto")
                advice = (f"Depois que {block['name']} termina, grave o ponto B — o resultado em messages e "
                          "pendingToolUse = None — antes de chamar o modelo de novo.")
                if isinstance(saved, dict) and saved.get("pendingToolUse") is None:
                    wrong = self.wrong_result(saved, block)
                    if not wrong:
                        seen = f"o checkpoint em disco ainda não tinha o resultado de {block['name']} em messages"
                    else:
                        seen = f"no checkpoint em disco, {wrong}"
                        advice = ("O tool_result do ponto B leva o tool_use_id do bloco tool_use e o texto que "
                                  "execute_tool devolveu, e é gravado antes de chamar o modelo de novo.")
                if power:
                    return f"{label}: {seen}. O código gravou o ponto B, mas essa gravação ainda não estava garantida no disco."
                return f"{label}: {seen}. {advice}"
        return ""

    def regression_failure(self, point: Point, recorded: dict[str, str]) -> str:
        """A checkpoint that goes back: once a crash state held a tool's result (its point B), every later
        one that loads must hold it too. An older state written again (a copy kept by another process, a
        stale save) makes the resume run that tool again, or ask the model for it again. `recorded`
        collects the results seen so far, in the order of the crash states. A cut inside a write, or the
        file between two pieces of one document, is escrita-atomica's to judge (whatever mixture it
        leaves), never a regression of the saves."""
        state = point.state
        if state.kind == TORN:
            return ""
        event = state.event
        if (state.kind == AFTER and event is not None and event.kind == "write"
                and bytes(event.data or b"") != (state.content or b"")):
            return ""  # between two pieces of one document written in place: a mixture, like a cut
        try:
            saved = parse(state.content)
        except (ValueError, UnicodeDecodeError):
            return ""
        if not isinstance(saved, dict):
            return ""
        lost = [name for use_id, name in recorded.items() if not has_result(saved, use_id, self.tool_results[name])]
        for block in self.tool_uses:
            if self.holds_result(saved, block):
                recorded.setdefault(block["id"], block["name"])
        if not lost:
            return ""
        pending = saved.get("pendingToolUse")
        shown = "ausente" if "pendingToolUse" not in saved else protocol.brief(pending, 80)
        return (f"{self.label(point)}: o checkpoint em disco voltou a um estado anterior — o resultado de {lost[0]}, "
                f"que um checkpoint anterior já tinha gravado (o ponto B), sumiu de messages (pendingToolUse = {shown}). "
                f"Uma queda aqui faria a retomada executar {lost[0]} de novo, ou pedir ao modelo de novo. Nenhuma "
                "gravação pode trazer de volta um estado mais antigo que o último ponto B.")

    def window_failure(self, point: Point, content: bytes | None, power: str = "") -> str:
        """A state saved after the tool a reply asked for started and before the next model call: a crash there
        resumes from it, so it must still carry the call (pendingToolUse) or already its result
        (a tool_result in messages); with neither, the resume acts as if the model never asked for
        the tool, and the call is lost or repeated. A file that does not load, or is absent, is
        escrita-atomica's to judge: only a complete checkpoint is read here."""
        try:
            saved = parse(content)
        except (ValueError, UnicodeDecodeError):
            return ""
        if not isinstance(saved, dict):
            return ""
        block = self.tool_uses[point.state.served - 1]  # what the last reply asked for
        expected = self.expected_pending(block["name"])
        pending = saved.get("pendingToolUse")
        carried = isinstance(pending, dict) and all(pending.get(k) == expected[k] for k in expected)
        if carried or self.holds_result(saved, block):
            return ""
        label = self.label(point) + power
        shown = "ausente" if "pendingToolUse" not in saved else protocol.brief(pending, 80)
        wrong = self.wrong_result(saved, block)
        instead = wrong or f"nenhum tool_result de {block['name']} em messages"
        text = (f"{label}: entre a volta de `execute_tool` e o ponto B, o checkpoint em disco já não tinha a chamada "
                f"pendente nem o resultado — pendingToolUse = {shown} e {instead}. "
                "Uma queda aqui retomaria como se o modelo nunca tivesse pedido a ferramenta, ou com um resultado "
                "que ela não devolveu: a chamada se perderia ou seria repetida.")
        if power:
            return text + " Numa falta de energia, é isso que poderia sobrar no disco."
        if wrong:
            return text + (" O tool_result leva o tool_use_id do bloco tool_use e o texto que execute_tool devolveu; "
                           "só limpe pendingToolUse na gravação que o põe em messages (o ponto B).")
        return text + (" Só limpe pendingToolUse na mesma gravação que põe o tool_result em messages "
                       "(o ponto B).")

    def early_failure(self, point: Point, content: bytes | None, power: str = "") -> str:
        """A state saved after the reply that asks for a tool and before the tool starts: one that does not
        hold the reply yet resumes by asking the model again (nothing ran, nothing is lost); one whose
        messages already hold the tool_use block must also carry the call (point A), or the resume
        finds a request for a tool with neither a pending call nor a result, and the call is lost."""
        try:
            saved = parse(content)
        except (ValueError, UnicodeDecodeError):
            return ""
        if not isinstance(saved, dict):
            return ""
        block = self.tool_uses[point.state.served - 1]
        if not asks_for(saved, block["id"]):
            return ""
        expected = self.expected_pending(block["name"])
        pending = saved.get("pendingToolUse")
        if (isinstance(pending, dict) and all(pending.get(k) == expected[k] for k in expected)) or self.holds_result(saved, block):
            return ""
        label = self.label(point) + power
        shown = "ausente" if "pendingToolUse" not in saved else protocol.brief(pending, 80)
        if pending is not None:
            # A call is there, but not this one (a wrong id, say): the save is the point A, with a wrong record.
            text = (f"{label}: entre a resposta do modelo que pede {block['name']} e a ferramenta, o checkpoint em "
                    f"disco tinha pendingToolUse = {shown}, mas a chamada pedida era {protocol.brief(expected, 120)}. "
                    "Uma queda aqui retomaria sem saber qual chamada ficou pendente: a reconciliação não a "
                    "encontraria.")
            if power:
                return text + " Numa falta de energia, é isso que poderia sobrar no disco."
            return text + " Copie id, name e input do bloco tool_use que o modelo devolveu."
        text = (f"{label}: entre a resposta do modelo que pede {block['name']} e o ponto A, o checkpoint em disco já "
                f"tinha essa resposta em messages, mas pendingToolUse = {shown}. Uma queda aqui retomaria com um "
                "pedido de ferramenta sem chamada pendente nem resultado: a chamada se perderia.")
        if power:
            return text + " Numa falta de energia, é isso que poderia sobrar no disco."
        return text + (" Grave a resposta do modelo em messages na mesma gravação que preenche pendingToolUse "
                       "(o ponto A).")

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
            # A state counts the replies its own messages hold, or any reply served since (the final one
            # may be counted before it joins messages): a stale state written late (a child's) is not
            # measured against replies it never saw.
            options = [self.tokens(j) for j in range(min(replies_in(saved), state.served), state.served + 1)]
            expected = options[-1]
            found = protocol.problems(saved, task=TASK, conversation=conversation,
                                      tokens_allowed={v for t in options for v in t.values()})
            when = f"No checkpoint em disco na queda {point.n} de {self.total} ({point.where})"
            self.cited.add(point.n)
            if found:
                return CriterionResult(cid, False, f"{when}: " + "; ".join(found) + ".",
                                       disk=disk_view(when, self.shown, state.content))
            if isinstance(saved, dict) and isinstance(saved.get("tokensUsed"), int):
                fits = {name for t in options for name, value in t.items() if value == saved["tokensUsed"]}
                history.append((point, saved["tokensUsed"], expected))
                conventions &= fits
                if not conventions:
                    before = ", ".join(f"{t} (queda {p.n})" for p, t, _ in history[:-1][-3:])
                    return CriterionResult(
                        cid, False,
                        f"{when}: tokensUsed = {saved['tokensUsed']}, mas os checkpoints anteriores ({before}) contavam de outro "
                        "jeito. tokensUsed é a soma de usage.output_tokens de todas as respostas recebidas, a primeira "
                        "inclusive: some cada resposta uma vez, logo que ela chega, sem recomeçar nem trocar a soma por "
                        "uma atribuição.",
                        disk=disk_view(when, self.shown, state.content))
        if not seen:
            return CriterionResult(cid, False, "Nenhum checkpoint completo foi gravado durante a execução.")
        return CriterionResult(cid, True)

    # --- falta de energia: the persistence model ---------------------------------------------------

def _text(value) -> str:
    return value[:500] if isinstance(value, str) else ""
