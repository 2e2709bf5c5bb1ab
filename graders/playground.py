"""The page's "Executar" button: run the student's code once against the fakes, no crash, and show what happened."""

from __future__ import annotations

import json

from . import nivel1, nivel2
from .guard import CodeError
from .runs import LocalRunner

CHECKPOINT_SHOWN = 20_000


def run(exercise_id: str, source: str, filename: str = "solucao.py") -> dict:
    """{"ok", "stdout", "error", "error_line", "summary", "checkpoint"} for the page to show."""
    if exercise_id == "nivel-1":
        job = nivel1.job(nivel1.sample_states()[-1:])
    else:
        job = nivel2.job()
    try:
        runner = LocalRunner(source, filename, job)
    except CodeError as exc:
        return {"ok": False, "stdout": "", "error": str(exc), "error_line": _syntax_line(source, filename),
                "summary": "", "checkpoint": None}
    try:
        log = runner.run(None)
    finally:
        runner.close()
    end = log.end if isinstance(log.end, dict) else {}
    ok = end.get("kind") == "ok" and not log.stopped
    if end.get("phase") == "call" and end.get("kind") != "missing":
        if exercise_id == "nivel-1":
            summary = "save_checkpoint foi chamada com o estado do ponto B do 1º turno."
        else:
            summary = (f"run_agent chamou o modelo {len(log.model_calls)} vez(es) e executou "
                       f"{len(log.tool_calls)} ferramenta(s)")
            summary += f"; devolveu {_describe_state(end.get('value'))}." if ok else "."
    else:
        summary = ""
    error = ""
    if not ok:
        error = end.get("traceback") or ((end.get("message") or "a execução não terminou") + ".")
    tree = log.pauses[-1] if log.pauses else log.disk
    path = nivel1.main_checkpoint(tree)
    checkpoint = None
    if path is not None and tree[path] is not None:
        content = tree[path]
        checkpoint = {"path": nivel1.shown(path), "bytes": len(content),
                      "content": content[:CHECKPOINT_SHOWN].decode("utf-8", "replace")}
    return {"ok": ok, "stdout": end.get("output", ""), "error": error, "error_line": end.get("error_line"),
            "summary": summary, "checkpoint": checkpoint}


def _describe_state(value) -> str:
    if not isinstance(value, dict):
        return f"{type(value).__name__} em vez do estado"
    keys = ", ".join(f"{k}={json.dumps(value[k])}" for k in ("turns", "tokensUsed") if k in value)
    return f"o estado ({keys})" if keys else "um dicionário"


def _syntax_line(source: str, filename: str):
    try:
        compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return exc.lineno
    except (ValueError, TypeError):
        return None
    return None
