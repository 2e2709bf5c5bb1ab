"""Grade the code of `nivel-1`: does the fixed `save_checkpoint` write all six fields of the state?"""

from __future__ import annotations

import copy
import json

from . import protocol
from .crashfs import FileSystemTracer
from .fake_agent import TASK, script
from .guard import BoundedOutput, CodeError, Sandbox, compile_student
from .disk import checkpoint_files, disk_view, left_on_disk, main_checkpoint
from .verdict import CriterionResult


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


def grade_code(source: str, filename: str = "solucao.py") -> tuple[dict[str, CriterionResult], str]:
    cid = "seis-campos"
    output = BoundedOutput()
    try:
        code = compile_student(source, filename)
    except CodeError as exc:
        return {cid: CriterionResult(cid, False, str(exc))}, ""
    box = Sandbox(code, filename, lambda workdir: FileSystemTracer(workdir), output)
    try:
        return {cid: _check(box)}, output.getvalue()
    finally:
        box.cleanup()


def _check(box: Sandbox) -> CriterionResult:
    cid = "seis-campos"
    load = box.load()
    if not load.ok:
        return CriterionResult(cid, False, f"O código falhou ao ser carregado: {load.message}.")
    save = box.function("save_checkpoint")
    if save is None:
        return CriterionResult(cid, False, "Não encontrei a função `save_checkpoint(state)` no código.")
    for n, state in enumerate(sample_states(), start=1):
        label = f"save_checkpoint com o estado do ponto {'A' if n == 1 else 'B'} do 1º turno"
        outcome = box.call(save, copy.deepcopy(state))
        if not outcome.ok:
            return CriterionResult(cid, False, f"{label}: {outcome.message or 'a gravação não terminou'}.")
        files = checkpoint_files(box.workdir)
        path = main_checkpoint(files)
        if path is None:
            return CriterionResult(cid, False, f"{label}: nenhum checkpoint.json apareceu na pasta.")
        content = files[path]
        try:
            saved = json.loads(content.decode("utf-8-sig"))
        except ValueError:
            return CriterionResult(
                cid, False, f"{label}: o {path} {left_on_disk(content)} — não é JSON válido.",
                disk=disk_view(label, path, content),
            )
        if saved != state:
            found = protocol.problems(
                saved, task=TASK, conversation=state["messages"], tokens_emitted=state["tokensUsed"]
            ) or [
                f"`{k}` gravado como {protocol.brief(saved.get(k))}, mas o estado tinha {protocol.brief(state[k])}"
                for k in protocol.FIELDS if isinstance(saved, dict) and saved.get(k) != state[k]
            ]
            return CriterionResult(cid, False, f"{label}: " + "; ".join(found) + ".", disk=disk_view(label, path, content))
    return CriterionResult(cid, True)
