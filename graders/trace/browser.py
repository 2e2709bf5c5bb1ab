"""The browser's traced run: one submission in Pyodide's only interpreter, its file-system calls seen
from JavaScript below Python (fstap.js, registered by the page's worker as `_fstap`), and the
interpreter put back as it was found afterwards."""

from __future__ import annotations

import asyncio  # loaded once, before any run: a run's own imports are dropped after it
import errno
import io
import json
import os
import random
import shutil
import sys
import tempfile

from .. import guard
from ..guard import FLOOD_LIMIT, BoundedOutput, OutputFlood
from .agent_server import AgentServer
from .ops import MAX_DATA, MAX_EVENTS, Trace, from_dict
from .pyodide_limits import PROCESS_MESSAGE, THREAD_MESSAGE
# The same runner the CLI's child runs (its JSON copies are bound before any student code runs).
from .runner import AgentLoopRunaway, call_job, plain

TAP_MODULE = "_fstap"
HOME = "/home/pyodide"  # Pyodide's HOME: nothing a run writes there survives it
WORK = HOME + "/projeto"  # a folder name a student could have chosen
TMP = "/tmp"
# As in the CLI's sandbox: /tmp and the home (holding the work folder) are two file systems.
ROOTS = [{"role": "work", "path": WORK}, {"role": "tmp", "path": TMP}, {"role": "home", "path": HOME}]
# Bridges out of the run: in Pyodide, `js` reaches the worker's own messaging.
BLOCKED_MODULES = (TAP_MODULE, "js", "pyodide", "pyodide.ffi", "pyodide.code", "pyodide_js", "_pyodide", "_pyodide_core")

# Bound before any student code runs: the trusted side of a run shares the student's interpreter, and
# code that rebinds json.loads or json.dumps must garble only its own data.
_encode = json.JSONEncoder(default=repr).encode
_decode = json.JSONDecoder().decode

_tap = None


def tap():
    """The JavaScript tap, imported while no student code has run (the worker registers it first)."""
    global _tap
    if _tap is None:
        import importlib

        _tap = importlib.import_module(TAP_MODULE)
    return _tap


def run_in_pyodide(source: str, filename: str, job: dict) -> Trace:
    """Run `job` once (see graders/trace/runner.py) with the tap recording; the trace as the tap saw it."""
    fs = tap()
    _empty(HOME)
    os.mkdir(WORK)
    _empty(TMP)
    marks: list = []

    def record(event):
        marks.append(event)
        fs.mark(len(marks) - 1)

    server = AgentServer(record)
    output = BoundedOutput()
    report: dict = {}
    with _Borrowed(output, fs) as borrowed:
        fs.start(_encode(ROOTS), MAX_EVENTS, MAX_DATA)
        try:
            report = call_job(source, filename, job, *_agent(server))
        except KeyboardInterrupt:
            if borrowed.page_stopped is not False:
                raise  # the page's "Parar" or its time limit: no verdict at all
            # The student's own `raise KeyboardInterrupt`: judged like any other exception.
            report = {"kind": "exception", "phase": "call", "exc_type": "KeyboardInterrupt", "exc_text": ""}
        except OutputFlood:
            report = {"kind": "exception", "phase": "call", "exc_type": "OutputFlood"}
        except AgentLoopRunaway:
            report = {"kind": "exception", "phase": "call", "exc_type": "AgentLoopRunaway"}
        finally:
            fs.stop()
    if report.get("exc_type") == "KeyboardInterrupt" and borrowed.page_stopped is not False:
        raise KeyboardInterrupt  # the page's "Parar": no verdict at all
    if borrowed.died:
        report = {}  # as in the CLI, a process that ended itself abruptly said nothing more
    raw = _decode(fs.json())
    trace = from_dict({
        "roots": raw["roots"],
        "events": [marks[e["ref"]] if e["kind"] == "mark" else _named(e) for e in raw["events"]],
        "final": raw["final"], "report": report, "output": output.getvalue(),
    } | _end(report, output, server, borrowed, raw["over"]))
    return trace


def _end(report: dict, output: BoundedOutput, server: AgentServer, borrowed: _Borrowed, over) -> dict:
    """How the run ended, from what the trusted side saw (never from the report alone)."""
    # limits as the kernel tap words them; "message" is what the student reads.
    if borrowed.threads:
        return {"end": "broken", "code": 0, "limits": {"message": THREAD_MESSAGE}}
    if borrowed.processes:
        return {"end": "broken", "code": 0, "limits": {"message": PROCESS_MESSAGE}}
    if borrowed.died:
        end, code = borrowed.died
        return {"end": end, "code": code}
    if output.attempted > FLOOD_LIMIT:
        return {"end": "flood", "code": 0}
    if server.runaway:
        return {"end": "runaway", "code": 0,
                "limits": {"model_calls": server.model_calls, "tool_calls": server.tool_calls}}
    if over:
        return {"end": "runaway", "code": 0, "limits": {over: MAX_EVENTS if over == "events" else MAX_DATA}}
    return {"end": "exit", "code": 0 if report.get("kind") == "ok" else 1}


def _named(event: dict) -> dict:
    """Emscripten's errno numbers are the ones Python's errno module has inside Pyodide."""
    if "errno" in event:
        event["errno"] = errno.errorcode.get(event["errno"], f"E{event['errno']}")
    return event


def _agent(server: AgentServer):
    """call_model, execute_tool and returned, served by `server` (the student gets JSON copies only)."""

    def ask(request: dict) -> dict:
        reply = server.handle(request)
        if reply.get("runaway"):
            raise AgentLoopRunaway()
        return _decode(_encode(reply))

    def call_model(*args, tools=None, messages=None, **kwargs):
        if args or messages is None:
            raise TypeError("call_model deve ser chamado como call_model(tools=..., messages=...)")
        return ask({"t": "model", "tools": plain(tools), "messages": plain(messages)})["response"]

    def execute_tool(name, input):
        reply = ask({"t": "tool", "name": plain(name), "input": plain(input)})
        if "error" in reply:
            raise KeyError(reply["error"])
        return reply["result"]

    def returned():
        ask({"t": "returned"})

    return call_model, execute_tool, returned



def _empty(path: str):
    """`path` as an empty folder, whatever the last run left in it (a folder it made unreadable too)."""
    if os.path.islink(path) or (os.path.lexists(path) and not os.path.isdir(path)):
        os.unlink(path)
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(path):
        full = os.path.join(path, name)
        if os.path.isdir(full) and not os.path.islink(full):
            for folder, dirs, _files in os.walk(full):
                for d in dirs:
                    os.chmod(os.path.join(folder, d), 0o700)
            os.chmod(full, 0o700)
            shutil.rmtree(full)
        else:
            os.unlink(full)


def _seeded_names():
    """tempfile's name generator with a fixed seed: every run (and the CLI) picks the same names."""
    names = tempfile._RandomNameSequence()
    names._rng = random.Random(2)
    names._rng_pid = os.getpid()
    return names


class _Died(SystemExit):
    """os._exit, os.abort, os.kill of itself: the process would end here, as it does in the CLI."""


class _Borrowed:
    """The interpreter lent to one run: set up for the student, then put back as it was found, with
    interrupts ignored while it is put back (a second "Parar" must not leave it half restored)."""

    def __init__(self, output: BoundedOutput, fs):
        self.output, self.fs = output, fs
        self.threads: list = []  # starts tried (Pyodide has no threads)
        self.processes: list = []  # the same for processes
        self.died: tuple | None = None  # (end, code) of the process's own abrupt end

    def __enter__(self):
        self.baseline = guard.snapshot()
        self.modules = set(sys.modules)
        self.meta_path = list(sys.meta_path)  # the runner adds its finder for multiprocessing
        self.saved = (os.getcwd(), sys.stdout, sys.stderr, sys.stdin, tempfile.tempdir, tempfile._name_sequence,
                      sys.dont_write_bytecode, sys.getrecursionlimit())
        self.blocked = {name: sys.modules.get(name, guard.MISSING) for name in BLOCKED_MODULES}
        logging = sys.modules.get("logging")
        self.logging = (logging, list(logging.root.handlers)) if logging is not None else None
        self.signals = _signal_handlers()
        self.page_stopped = _note_page_interrupts(self)
        self.patched = []
        os.chdir(WORK)
        sys.stdout = sys.stderr = self.output
        sys.stdin = io.StringIO("")
        tempfile.tempdir = TMP
        tempfile._name_sequence = _seeded_names()
        sys.dont_write_bytecode = True
        self._patch_deaths()
        self._patch_threads()
        self._patch_processes()
        self._patch_asyncio()
        self._patch_syncs()
        sys.modules.update(dict.fromkeys(BLOCKED_MODULES))  # None: `import js` raises ImportError
        return self

    def _patch(self, owner, name, value):
        if hasattr(owner, name):
            self.patched.append((owner, name, getattr(owner, name)))
            setattr(owner, name, value)

    def _patch_deaths(self):
        """The calls that end a CLI process at once end the run the same way (status or signal)."""

        def die(end: str, code: int):
            if self.died is None:
                self.died = (end, code)
            raise _Died(code)

        def _exit(status):
            die("exit", status & 0xFF)

        def abort():
            die("signal", 6)

        def kill(pid, sig):
            if pid not in (0, os.getpid()):
                raise ProcessLookupError(errno.ESRCH, "No such process")
            if sig:
                die("signal", sig)

        for name, fn in (("_exit", _exit), ("abort", abort), ("kill", kill)):
            self._patch(os, name, fn)

    def _patch_threads(self):
        """Pyodide cannot start a thread; one tried means this run cannot be judged here."""
        import _thread

        owners = [_thread] + [m for m in (sys.modules.get("threading"),) if m is not None]
        for owner in owners:
            for name in ("start_new_thread", "start_joinable_thread", "start_new",
                         "_start_new_thread", "_start_joinable_thread"):
                original = getattr(owner, name, None)
                if original is not None:
                    self._patch(owner, name, self._thread_starter(original))

    def _patch_processes(self):
        """Nor a process: the call fails as Pyodide makes it fail, and the run is known to have tried."""
        for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system"):
            original = getattr(os, name, None)
            if original is not None:
                self._patch(os, name, self._process_starter(original))

    def _process_starter(self, original):
        def start(*args, **kwargs):
            self.processes.append(True)
            return original(*args, **kwargs)

        return start

    def _thread_starter(self, original):
        def start(*args, **kwargs):
            self.threads.append(True)
            return original(*args, **kwargs)

        return start

    def _patch_asyncio(self):
        """Pyodide's own loop cannot block a synchronous call, and counts as always running: during
        the run asyncio.run and new_event_loop get a loop that blocks, as on a computer."""
        for owner in (asyncio, asyncio.events):
            self._patch(owner, "new_event_loop", _blocking_loop)
        self.running_loop = asyncio.events._get_running_loop()
        self.policy = asyncio.events._get_event_loop_policy()
        self.current_loop = getattr(self.policy, "_default_loop", None)  # Pyodide's WebLoopPolicy
        asyncio.events._set_running_loop(None)

    def _patch_syncs(self):
        """Emscripten's fdatasync and sync never reach JavaScript: they are reported to the tap after
        the real call (nothing else of the file system is seen from Python)."""
        fs, real_fdatasync, real_sync = self.fs, getattr(os, "fdatasync", None), getattr(os, "sync", None)

        def fdatasync(fd):
            real_fdatasync(fd)
            fs.datasync(fd if isinstance(fd, int) else fd.fileno())

        def sync():
            real_sync()
            fs.sync()

        if real_fdatasync is not None:
            self._patch(os, "fdatasync", fdatasync)
        if real_sync is not None:
            self._patch(os, "sync", sync)

    def __exit__(self, *exc):
        _ignore_interrupts()  # until the very end: the interpreter is never left half restored
        try:
            if self.logging is not None:
                logging, handlers = self.logging
                logging.root.handlers[:] = handlers
            threading = sys.modules.get("threading")
            if threading is not None:
                threading.settrace(None)
                threading.setprofile(None)
            sys.settrace(None)
            sys.setprofile(None)
            while self.patched:
                owner, name, value = self.patched.pop()
                setattr(owner, name, value)
            asyncio.events._set_running_loop(self.running_loop)
            asyncio.events._set_event_loop_policy(self.policy)
            if hasattr(self.policy, "_default_loop"):  # asyncio.run leaves no current loop behind it
                self.policy._default_loop = self.current_loop
            (cwd, sys.stdout, sys.stderr, sys.stdin, tempfile.tempdir, tempfile._name_sequence,
             sys.dont_write_bytecode, limit) = self.saved
            sys.setrecursionlimit(limit)
            os.chdir(cwd)
            for name, module in self.blocked.items():
                if module is guard.MISSING:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = module
            guard.restore(self.baseline)
            sys.meta_path[:] = self.meta_path
            # Modules the student's code imported are loaded anew next run (logging's handlers...).
            for name in set(sys.modules) - self.modules:
                sys.modules.pop(name, None)
        finally:
            _restore_signal_handlers(self.signals)  # last: SIGINT raises KeyboardInterrupt again
        return False


def _blocking_loop():
    """An event loop that runs coroutines, tasks and timers and blocks while it waits, as asyncio.run
    does on a computer. Nothing to wait on but time: there are no sockets or pipes here."""
    import time

    class NoIO:
        def select(self, timeout=None):
            while timeout is None:  # waiting on nothing: only the page's time limit ends this
                time.sleep(1)
            if timeout > 0:
                time.sleep(timeout)
            return []

        def close(self):
            pass

    class Loop(asyncio.BaseEventLoop):
        def __init__(self):
            super().__init__()
            self._selector = NoIO()

        def _process_events(self, event_list):
            pass

        def _write_to_self(self):
            pass

    return Loop()


def _note_page_interrupts(borrowed) -> bool | None:
    """While the student's code runs, a SIGINT is the page's "Parar" or time limit (Pyodide's interrupt
    buffer): noted on `borrowed`, so a KeyboardInterrupt the code raises itself is told apart. False
    (none yet); None when no handler could be set, and every KeyboardInterrupt counts as the page's."""
    try:
        import signal

        def page_interrupt(_signum, _frame):
            borrowed.page_stopped = True
            raise KeyboardInterrupt

        signal.signal(signal.SIGINT, page_interrupt)
    except (ImportError, ValueError, OSError, AttributeError):
        return None
    return False


def _ignore_interrupts():
    """SIGINT ignored (the page's "Parar" sends it through Pyodide's interrupt buffer): an interrupt
    taken now is dropped, and the page, seeing the call still running, asks again."""
    try:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ImportError, ValueError, OSError, AttributeError):
        pass


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
