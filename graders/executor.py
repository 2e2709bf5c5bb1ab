"""Executor: run student code once, reporting every step to the controller, and say how it ended.

This is the only module that runs student code. It decides nothing: the controller
(graders.controller) answers each report and the judge reads the disk. In the CLI it
runs in a fresh forked process inside the sandbox; in the browser, in Pyodide's only
interpreter, where `run_in_process` also puts back what the student's code changed.
"""

from __future__ import annotations

import io
import json
import os
import random
import sys
import tempfile
import types

from .guard import FLOOD_LIMIT, BoundedOutput, OutputFlood, describe_exception, last_student_line, student_traceback
from .hooks import FileHooks, SimulatedCrash, StudentExit

STUDENT_MODULE = "solucao"
WORKDIR, SYSTEM_TMP = "trabalho", "tmp-do-sistema"
# Bridges out of the run: in Pyodide, `js` reaches the worker's own messaging.
BLOCKED_MODULES = ("js", "pyodide", "pyodide.ffi", "pyodide.code", "pyodide_js", "_pyodide", "_pyodide_core")
# Bound at import: a student who rebinds json.loads only garbles their own reports.
to_json = json.JSONEncoder(default=repr).encode
from_json = json.JSONDecoder().decode


class AgentLoopRunaway(BaseException):
    """The controller said the loop ran far past the script (or did far too much file work)."""


class Report:
    """What the student's code may call to talk to the controller: the fake model and tools."""

    def __init__(self, send, hooks: FileHooks):
        self._send = send
        self._hooks = hooks

    def call_model(self, *args, tools=None, messages=None, **kwargs):
        if args or messages is None:
            raise TypeError("call_model deve ser chamado como call_model(tools=..., messages=...)")
        if self._hooks.dead:
            raise SimulatedCrash()
        answer = self._send({"t": "model", "tools": plain(tools), "messages": plain(messages)})
        if "response" not in answer:
            raise AgentLoopRunaway()
        return answer["response"]

    def execute_tool(self, name, input):
        # The tool runs between save points A and B: a crash can land inside it.
        answer = self._hooks.step("tool", str(name)[:200], input=plain(input))
        if "error" in answer:
            raise KeyError(answer["error"])
        if "result" not in answer:
            raise AgentLoopRunaway()
        return answer["result"]


def plain(value):
    """A JSON copy of what the student hands over (their objects are never shared)."""
    try:
        return from_json(to_json(value))
    except (TypeError, ValueError, RecursionError):
        return {"<não serializável>": repr(value)[:200]}


def _seeded_names():
    """tempfile's name generator with a fixed seed: every run (and Pyodide) picks the same names."""
    names = tempfile._RandomNameSequence()
    names._rng = random.Random(2)
    names._rng_pid = os.getpid()
    return names


def _refuse(what: str):
    def refuse(*args, **kwargs):
        raise StudentExit(what)

    return refuse


def execute(code, filename: str, root: str, job: dict, send, output: BoundedOutput) -> dict:
    """Run `job` in `root` (which holds trabalho/ and tmp-do-sistema/); returns the end report.

    job: {"function": "run_agent", "task", "tools"} or {"function": "save_checkpoint", "states": [...]}.
    """
    hooks = FileHooks(root, send)
    report = Report(send, hooks)
    os.chdir(os.path.join(root, WORKDIR))
    sys.stdout = sys.stderr = output
    sys.stdin = io.StringIO("")
    tempfile.tempdir = os.path.join(root, SYSTEM_TMP)
    tempfile._name_sequence = _seeded_names()
    sys.dont_write_bytecode = True
    os.abort, os.kill = _refuse("os.abort()"), _refuse("os.kill()")
    sys.modules.update(dict.fromkeys(BLOCKED_MODULES))  # None: `import js` raises ImportError
    namespace = vars(types.ModuleType(STUDENT_MODULE))
    namespace["__file__"] = filename
    end = {"t": "end", "kind": "ok"}
    hooks.install()
    try:
        phase = "load"
        exec(code, namespace)
        phase = "call"
        fn = namespace.get(job["function"])
        if not callable(fn):
            end.update(kind="missing", message=job["missing"])
        elif job["function"] == "run_agent":
            end["value"] = plain(fn(job["task"], job["tools"], report.call_model, report.execute_tool))
        else:
            for n, state in enumerate(job["states"]):
                fn(state)
                send({"t": "returned", "call": n})
    except SimulatedCrash:
        end.update(kind="crash")
    except AgentLoopRunaway:
        end.update(kind="runaway", message="run_agent chamou o modelo ou as ferramentas muito mais vezes do que o roteiro prevê")
    except OutputFlood:
        end.update(kind="flood", message=f"saída demais: o código imprimiu mais de {FLOOD_LIMIT:_} caracteres numa só "
                                         "execução e foi parado (tire os print de dentro dos laços)".replace("_", "."))
    except SystemExit as exc:
        end.update(kind="exit", message=f"o código chamou sys.exit({'' if exc.code is None else repr(exc.code)})")
    except StudentExit as exc:
        end.update(kind="exit", message=f"o código chamou {exc}")
    except KeyboardInterrupt:
        raise  # the page's "Parar" button: stop altogether
    except BaseException as exc:  # noqa: BLE001 - any student fault becomes a report
        end.update(kind="exception", message=describe_exception(exc, filename),
                   traceback=student_traceback(exc, filename), error_line=last_student_line(exc, filename))
    finally:
        # A second "Parar" must not cut the put-back short; run_in_process (or the process's end) lifts this.
        _ignore_interrupts()
        hooks.uninstall()
    end["phase"] = phase
    end["output"] = output.getvalue()
    return end


def run_in_process(code, filename: str, root: str, job: dict, send, output: BoundedOutput, baseline=None) -> dict:
    """`execute` inside the caller's interpreter (Pyodide, tests), leaving it as it was found
    (`baseline`: the watched modules as they were before any student code ran)."""
    from . import guard

    baseline = baseline if baseline is not None else guard.snapshot()
    modules = set(sys.modules)
    saved = (os.getcwd(), sys.stdout, sys.stderr, sys.stdin, tempfile.tempdir, tempfile._name_sequence,
             sys.dont_write_bytecode, sys.getrecursionlimit(), os.abort, os.kill)
    blocked = {name: sys.modules.get(name, guard.MISSING) for name in BLOCKED_MODULES}
    # Pyodide imports logging itself: a run's logging.basicConfig must not outlive the run.
    logging = sys.modules.get("logging")
    handlers = list(logging.root.handlers) if logging is not None else None
    signals = _signal_handlers()
    try:
        return execute(code, filename, root, job, send, output)
    finally:
        _ignore_interrupts()  # until the very end: the interpreter is never left half restored
        try:
            if logging is not None:
                logging.root.handlers[:] = handlers
            threading = sys.modules.get("threading")
            if threading is not None:
                threading.settrace(None)
                threading.setprofile(None)
            sys.settrace(None)
            sys.setprofile(None)
            (cwd, sys.stdout, sys.stderr, sys.stdin, tempfile.tempdir, tempfile._name_sequence,
             sys.dont_write_bytecode, limit, os.abort, os.kill) = saved
            sys.setrecursionlimit(limit)
            os.chdir(cwd)
            for name, module in blocked.items():
                if module is guard.MISSING:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = module
            guard.restore(baseline)
            # Modules the student's code imported are loaded anew next run (logging's handlers...).
            for name in set(sys.modules) - modules:
                sys.modules.pop(name, None)
        finally:
            _restore_signal_handlers(signals)  # last: SIGINT raises KeyboardInterrupt again


def _ignore_interrupts():
    """SIGINT ignored (the page's "Parar" sends it through Pyodide's interrupt buffer): an
    interrupt taken now is dropped, and the page, seeing the call still running, asks again."""
    try:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ImportError, ValueError, OSError, AttributeError):
        pass  # no signals here (or not the main thread): nothing can interrupt the put-back either


def _signal_handlers() -> dict:
    try:
        import signal
    except ImportError:
        return {}
    handlers = {}
    for name in ("SIGINT", "SIGTERM", "SIGALRM", "SIGUSR1", "SIGUSR2", "SIGHUP", "SIGVTALRM", "SIGPROF"):
        number = getattr(signal, name, None)
        if number is not None:
            try:
                handlers[number] = signal.getsignal(number)
            except (ValueError, OSError):
                pass
    return handlers


def _restore_signal_handlers(handlers: dict):
    import signal

    for number, handler in handlers.items():
        try:
            if signal.getsignal(number) is not handler and handler is not None:
                signal.signal(number, handler)
        except (ValueError, OSError, TypeError):
            pass
    for timer in ("ITIMER_REAL", "ITIMER_VIRTUAL", "ITIMER_PROF"):
        try:
            signal.setitimer(getattr(signal, timer), 0)
        except (AttributeError, ValueError, OSError):
            pass
