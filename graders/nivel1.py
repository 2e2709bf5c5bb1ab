"""Judge the code of `nivel-1`: does the fixed `save_checkpoint` write all six fields of the state?"""

from __future__ import annotations

import copy
import json

from . import protocol
from .controller import RunLog
from .disk import checkpoint_paths, disk_view, left_on_disk
from .executor import WORKDIR
from .fake_agent import TASK, script
from .verdict import CriterionResult

CID = "seis-campos"


def sample_states() -> list[dict]:
    """A state at point A of the first turn, then at point B (what save_checkpoint receives)."""
    conversation = script()
    first = conversation["responses"][0]
    block = conversation["tool_uses"][0]
    messages = [
        {"role": "user", "content": TASK},
        {"role": "assistant", "content": first["content"]},
    ]
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


def main_checkpoint(tree: dict) -> str | None:
    """The one a resume reads: ./checkpoint.json, else the first one found (e.g. checkpoints/checkpoint.json)."""
    preferred = f"{WORKDIR}/checkpoint.json"
    if preferred in tree:
        return preferred
    return next(iter(checkpoint_paths({p: c for p, c in tree.items() if p.startswith(WORKDIR + "/")})), None)


def shown(path: str) -> str:
    return path[len(WORKDIR) + 1:] if path.startswith(WORKDIR + "/") else path


def grade_code(source: str, filename: str = "solucao.py", runner_factory=None) -> tuple[dict[str, CriterionResult], str, None]:
    from .runs import code_failure, local_runner

    failure = code_failure(source, filename, [CID])
    if failure:
        return failure, "", None
    runner = (runner_factory or local_runner)(source, filename, job())
    try:
        return {CID: judge(runner.run(None))}, runner.output, None
    finally:
        runner.close()


def judge(log: RunLog) -> CriterionResult:
    end = log.end if isinstance(log.end, dict) else {}
    if log.stopped in ("lost", "protocol", "timeout", "runaway") or not end:
        return CriterionResult(CID, False, "A gravação não terminou: o processo parou sem dizer como "
                                           "(tempo esgotado, ou o código encerrou o processo à força).")
    message = end.get("message") if isinstance(end.get("message"), str) else ""
    if end.get("phase") == "load" and end.get("kind") != "ok":
        return CriterionResult(CID, False, f"O código falhou ao ser carregado: {message[:500]}.")
    if end.get("kind") == "missing":
        return CriterionResult(CID, False, "Não encontrei a função `save_checkpoint(state)` no código.")
    for n, state in enumerate(sample_states()):
        label = f"save_checkpoint com o estado do ponto {'A' if n == 0 else 'B'} do 1º turno"
        if n >= len(log.pauses):
            return CriterionResult(CID, False, f"{label}: {message[:500] or 'a gravação não terminou'}.")
        tree = log.pauses[n]
        path = main_checkpoint(tree)
        if path is None:
            return CriterionResult(CID, False, f"{label}: nenhum checkpoint.json apareceu na pasta.")
        content = tree[path]
        try:
            saved = json.loads((content or b"").decode("utf-8-sig"))
        except (ValueError, RecursionError):
            return CriterionResult(
                CID, False, f"{label}: o {shown(path)} {left_on_disk(content or b'')} — não é JSON válido.",
                disk=disk_view(label, shown(path), content),
            )
        if saved != state:
            found = protocol.problems(
                saved, task=TASK, conversation=state["messages"], tokens_allowed={state["tokensUsed"]}
            ) or [
                f"`{k}` gravado como {protocol.brief(saved.get(k))}, mas o estado tinha {protocol.brief(state[k])}"
                for k in protocol.FIELDS if isinstance(saved, dict) and saved.get(k) != state[k]
            ]
            return CriterionResult(CID, False, f"{label}: " + "; ".join(found) + ".", disk=disk_view(label, shown(path), content))
    return CriterionResult(CID, True)
