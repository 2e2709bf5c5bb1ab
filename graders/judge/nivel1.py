"""Judge the code of `nivel-1` from one traced run: after each call of the fixed `save_checkpoint`
returns, does the file a resume would read hold all six fields of the state it was given?"""

from __future__ import annotations

import copy
import json
import posixpath

from . import protocol
from ..fake_agent import TASK, script
from ..replay.folder import Folder
from ..trace.ops import Trace
from .ends import end_text, outlived_text, refused_text
from .errors import describe
from .reading import BOM, BOM_NOTE, disk_view, left_on_disk
from .verdict import CriterionResult

CID = "seis-campos"
CHECKPOINT = "checkpoint.json"


def sample_states() -> list[dict]:
    """A state at point A of the first turn, then at point B (what save_checkpoint receives)."""
    conversation = script()
    first = conversation["responses"][0]
    block = conversation["tool_uses"][0]
    messages = [{"role": "user", "content": TASK}, {"role": "assistant", "content": first["content"]}]
    at_a = {
        "version": 1, "task": TASK, "turns": 0, "tokensUsed": first["usage"]["output_tokens"],
        "messages": messages,
        "pendingToolUse": {"id": block["id"], "name": block["name"], "input": block["input"]},
    }
    at_b = copy.deepcopy(at_a)
    at_b["messages"].append({
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": block["id"], "content": conversation["tool_results"][block["name"]]}],
    })
    at_b["turns"], at_b["pendingToolUse"] = 1, None
    return [at_a, at_b]


def job(states=None) -> dict:
    return {"function": "save_checkpoint", "states": states if states is not None else sample_states(),
            "missing": "não encontrei a função `save_checkpoint(state)` no código"}


def main_checkpoint(files: dict, work: str) -> str | None:
    """The one a resume reads: ./checkpoint.json, else the first one below the work folder
    (e.g. checkpoints/checkpoint.json, as in the lesson)."""
    preferred = f"{work.rstrip('/')}/{CHECKPOINT}"
    if preferred in files:
        return preferred
    below = sorted(p for p in files if p.startswith(work.rstrip("/") + "/") and posixpath.basename(p) == CHECKPOINT)
    return below[0] if below else None


def folders_at_returns(trace: Trace) -> list[dict]:
    """The files under the roots each time save_checkpoint returned."""
    folder = Folder(trace.roots)
    pauses = []
    for ev in trace.events:
        if ev.kind == "returned":
            pauses.append(folder.files())
        else:
            folder.apply(ev)
    return pauses


def judge(trace: Trace) -> CriterionResult:
    work = trace.root("work")
    report = trace.report or {}
    if report.get("phase") == "load" and report.get("kind") not in (None, "ok"):
        if end_text(trace):  # what the trusted side saw, before the runner's account
            return CriterionResult(CID, False, f"O código não chegou a ser carregado: {end_text(trace)}.")
        return CriterionResult(CID, False, f"O código falhou ao ser carregado: {describe(report)}.")
    if report.get("kind") == "missing":
        return CriterionResult(CID, False, "Não encontrei a função `save_checkpoint(state)` no código.")
    pauses = folders_at_returns(trace)
    for n, state in enumerate(sample_states()):
        label = f"save_checkpoint com o estado do ponto {'A' if n == 0 else 'B'} do 1º turno"
        if n >= len(pauses):
            why = describe(report) if trace.end == "exit" else end_text(trace)
            return CriterionResult(CID, False, f"{label}: {why or 'a gravação não terminou'}.")
        files = pauses[n]
        path = main_checkpoint(files, work.path) if work else None
        if path is None:
            return CriterionResult(CID, False, f"{label}: nenhum {CHECKPOINT} apareceu no diretório.")
        shown = path[len(work.path.rstrip("/")) + 1:]
        content = files[path]
        try:
            saved = json.loads((content or b"").decode("utf-8"))
        except (ValueError, RecursionError, UnicodeDecodeError):
            why = f" ({BOM_NOTE})" if (content or b"").startswith(BOM) else ""
            return CriterionResult(CID, False, f"{label}: o {shown} {left_on_disk(content or b'')} — não é JSON válido{why}.",
                                   disk=disk_view(label, shown, content))
        if saved != state:
            found = _without_missing_names(
                saved, protocol.problems(saved, task=TASK, conversation=state["messages"], tokens_allowed={state["tokensUsed"]})
            ) or [
                f"`{k}` gravado como {protocol.brief(saved.get(k))}, mas o estado tinha {protocol.brief(state[k])}"
                for k in protocol.FIELDS if isinstance(saved, dict) and saved.get(k) != state[k]
            ]
            return CriterionResult(CID, False, f"{label}: " + "; ".join(found) + ".", disk=disk_view(label, shown, content))
    outlived = outlived_text(trace, "save_checkpoint")
    if outlived:
        return CriterionResult(CID, False, outlived)
    refused = refused_text(trace)
    if refused:
        return CriterionResult(CID, False, refused)
    return _final_problem(trace, work.path if work else "", state) or CriterionResult(CID, True)


def _final_problem(trace: Trace, work: str, last: dict) -> CriterionResult | None:
    """The folder after the process ended (read by the trusted side) must still hold the last state.
    "returned" is the process's own claim, so code can forge it at a moment when the file is right and
    then break the file; nothing runs after the last call returns but the runner, so the end is the
    one moment no claim decides."""
    final = trace.final
    if final is None or not work:
        return None
    label = "depois que save_checkpoint retornou pela última vez (ponto B do 1º turno)"
    path = main_checkpoint(final, work)
    content = final.get(path) if path else None
    if content is None:
        return CriterionResult(CID, False, f"Ao fim da execução, {label}, não havia nenhum {CHECKPOINT} no diretório.")
    try:
        saved = json.loads(content.decode("utf-8"))
    except (ValueError, RecursionError, UnicodeDecodeError):
        saved = None
    if saved != last:
        shown = path[len(work.rstrip("/")) + 1:]
        return CriterionResult(CID, False, f"Ao fim da execução, {label}, o {shown} em disco já não era o estado que "
                                           "save_checkpoint recebeu: o código mudou o arquivo depois de gravá-lo.",
                               disk=disk_view("fim da execução", shown, content))
    return None


def _without_missing_names(saved, problems: list[str]) -> list[str]:
    """The same problems, but the missing fields are counted, not named: naming them would answer
    the exercise's own question ("quais campos faltam?") on the first Verificar of the starter."""
    if not isinstance(saved, dict) or all(k in saved for k in protocol.FIELDS):
        return problems
    present = [k for k in protocol.FIELDS if k in saved]
    if present:
        has = f"tem só {len(present)} dos seis campos do protocolo (" + ", ".join(f"`{k}`" for k in present) + ")"
    else:
        has = "não tem nenhum dos seis campos do protocolo"
    return [f"o checkpoint gravado {has}"] + [p for p in problems if not p.startswith("faltam os campos ")]
