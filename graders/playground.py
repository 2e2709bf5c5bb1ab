"""The page's "Executar" button: run the student's code once against the fakes, no crash, and show
what happened (output, error, the checkpoint left in the work folder)."""

from __future__ import annotations

import json

from .guard import CodeError, compile_student
from .judge import errors, nivel1, nivel2
from .judge.ends import end_sentence

CHECKPOINT_SHOWN = 20_000


def run(exercise_id: str, source: str, filename: str = "solucao.py", run_code=None) -> dict:
    """{"ok", "stdout", "error", "error_line", "summary", "checkpoint"} for the page to show."""
    from .grading import default_run

    job = nivel1.job(nivel1.sample_states()[-1:]) if exercise_id == "nivel-1" else nivel2.job()
    try:
        compile_student(source, filename, action="execute")
    except CodeError as exc:
        return {"ok": False, "stdout": "", "error": str(exc), "error_line": _syntax_line(source, filename),
                "summary": "", "checkpoint": None}
    trace = (run_code or default_run())(source, filename, job)
    report = trace.report or {}
    ok = trace.ended_cleanly
    models = sum(1 for e in trace.events if e.kind == "model")
    tools = sum(1 for e in trace.events if e.kind == "tool")
    summary = ""
    if report.get("phase") == "call" and report.get("kind") != "missing":
        if exercise_id == "nivel-1":
            summary = "save_checkpoint foi chamada com o estado do ponto B do 1º turno."
        else:
            summary = (f"run_agent chamou o modelo {nivel2.plural(models, 'vez', 'vezes')} e executou "
                       f"{nivel2.plural(tools, 'ferramenta', 'ferramentas')}")
            summary += f"; devolveu {_describe_state(report.get('value'))}." if ok and "value" in report else "."
    error = ""
    function = "save_checkpoint" if exercise_id == "nivel-1" else "run_agent"
    if trace.end == "exit" and not report.get("kind"):
        # No account at all from the runner: the code ended the process itself, whatever the status.
        ok = False
        status = f" com o código {trace.code}" if trace.code else ""
        error = (f"O processo terminou{status} antes de {function} retornar: o próprio código o encerrou "
                 "(por exemplo, com os._exit).")
    elif not ok:
        error = errors.traceback_text(report) if trace.end == "exit" else ""
        error = error or end_sentence(trace) or "A execução não terminou."
    checkpoint = None
    work = trace.root("work")
    files = trace.final or {}
    path = nivel1.main_checkpoint(files, work.path) if work else None
    if path is not None and files.get(path) is not None:
        content = files[path]
        checkpoint = {"path": path[len(work.path.rstrip("/")) + 1:], "bytes": len(content),
                      "content": content[:CHECKPOINT_SHOWN].decode("utf-8", "replace")}
    return {"ok": ok, "stdout": trace.output, "error": error, "error_line": errors.error_line(report),
            "summary": summary, "checkpoint": checkpoint}


def _describe_state(value) -> str:
    if not isinstance(value, dict):
        return f"{value if isinstance(value, str) else '?'} em vez do estado"
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
