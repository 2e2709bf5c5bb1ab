"""The page's "Executar" button: run the student's code once against the fakes, no crash, and show what happened."""

from __future__ import annotations

import copy
import json
import traceback

from .crashfs import FileSystemTracer
from .fake_agent import TASK, FakeAgentWorld
from .guard import BoundedOutput, CodeError, Sandbox, compile_student
from .nivel1 import sample_states
from .disk import checkpoint_files, main_checkpoint


def student_traceback(exc: BaseException, filename: str) -> str:
    """The traceback restricted to the student's own lines, in Portuguese."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    lines = ["Traceback (chamada mais recente por último):"]
    for frame in frames:
        lines.append(f"  linha {frame.lineno}, em {frame.name}")
        if frame.line:
            lines.append(f"    {frame.line.strip()}")
    lines.append("".join(traceback.format_exception_only(type(exc), exc)).strip())
    return "\n".join(lines)


def run(exercise_id: str, source: str, filename: str = "solucao.py") -> dict:
    """{"ok", "stdout", "error", "error_line", "summary", "checkpoint"} for the page to show."""
    output = BoundedOutput()
    try:
        code = compile_student(source, filename)
    except CodeError as exc:
        line = _syntax_line(source, filename)
        return {"ok": False, "stdout": "", "error": str(exc), "error_line": line, "summary": "", "checkpoint": None}
    box = Sandbox(code, filename, lambda workdir: FileSystemTracer(workdir), output)
    error, error_line, summary = "", None, ""
    try:
        outcome = box.load()
        if outcome.ok:
            if exercise_id == "nivel-1":
                fn = box.function("save_checkpoint")
                if fn is None:
                    outcome.kind, outcome.message = "missing", "não encontrei a função save_checkpoint(state)"
                else:
                    outcome = box.call(fn, copy.deepcopy(sample_states()[-1]))
                    summary = "save_checkpoint foi chamada com o estado do ponto B do 1º turno."
            else:
                fn = box.function("run_agent")
                if fn is None:
                    outcome.kind, outcome.message = "missing", "não encontrei a função run_agent(task, tools, call_model, execute_tool)"
                else:
                    world = FakeAgentWorld(box.tracer)
                    outcome = box.call(fn, TASK, copy.deepcopy(world.script["tools"]), world.call_model, world.execute_tool)
                    summary = (
                        f"run_agent chamou o modelo {len(world.model_calls)} vez(es) e executou "
                        f"{len(world.tool_calls)} ferramenta(s)"
                    )
                    if outcome.ok:
                        summary += f"; devolveu {_describe_state(outcome.value)}."
                    else:
                        summary += "."
        if not outcome.ok:
            if outcome.kind == "exception" and isinstance(outcome.value, BaseException):
                error = student_traceback(outcome.value, filename)
                error_line = _last_student_line(outcome.value, filename)
            else:
                error = (outcome.message or "a execução não terminou") + "."
        files = checkpoint_files(box.workdir)
        path = main_checkpoint(files)
        checkpoint = None
        if path is not None:
            checkpoint = {"path": path, "bytes": len(files[path]), "content": files[path][:20000].decode("utf-8", "replace")}
        return {
            "ok": outcome.ok, "stdout": output.getvalue(), "error": error, "error_line": error_line,
            "summary": summary, "checkpoint": checkpoint,
        }
    finally:
        box.cleanup()


def _describe_state(value) -> str:
    if not isinstance(value, dict):
        return f"{type(value).__name__} em vez do estado"
    keys = ", ".join(f"{k}={json.dumps(value[k])}" for k in ("turns", "tokensUsed") if k in value)
    return f"o estado ({keys})" if keys else "um dicionário"


def _last_student_line(exc: BaseException, filename: str):
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    return frames[-1].lineno if frames else None


def _syntax_line(source: str, filename: str):
    try:
        compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return exc.lineno
    except (ValueError, TypeError):
        return None
    return None
