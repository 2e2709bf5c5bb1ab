"""Stand-in for graders.trace.runner.call_job until it lands (same contract); delete it then."""

from __future__ import annotations

import traceback
import types


def call_job(source, filename, job, call_model, execute_tool, returned) -> dict:
    report = {"kind": "ok", "phase": "load"}
    try:
        code = compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return {"kind": "exception", "phase": "load", "exc_type": "SyntaxError", "exc_text": str(exc.msg),
                "lineno": exc.lineno, "syntax": {"msg": exc.msg, "lineno": exc.lineno, "offset": exc.offset,
                                                  "text": exc.text}}
    namespace = vars(types.ModuleType("solucao"))
    namespace["__file__"] = filename
    try:
        exec(code, namespace)
        report["phase"] = "call"
        fn = namespace.get(job["function"])
        if not callable(fn):
            report["kind"] = "missing"
        elif job["function"] == "run_agent":
            fn(job["task"], job["tools"], call_model, execute_tool)
        else:
            for state in job["states"]:
                fn(state)
                returned()
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:
        report.update(kind="exit", exc_type="SystemExit", exc_text=str(exc.code))
    except BaseException as exc:  # noqa: BLE001 - any student fault becomes a report
        frames = [[f.lineno, f.name, f.line] for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
        report.update(kind="exception", exc_type=type(exc).__name__, exc_text=str(exc),
                      lineno=frames[-1][0] if frames else None, frames=frames)
    return report
