"""Runs inside the student's process: loads the code as module `solucao`, calls the job's function
and reports how it went. Standard library only: its text is passed to `python3 -c` (CLI) and the
browser imports it in Pyodide. It decides nothing; its report is untrusted and only words messages."""

import sys

# Started as `python -c` (CLI), the working folder comes first in sys.path: the runner's own imports
# skip it (each import would look there first, one more call for the supervisor), and it is put back
# before any student code runs.
_CWD_FIRST = sys.path[:1] == [""]
if _CWD_FIRST:
    del sys.path[0]
import json  # noqa: E402
import os  # noqa: E402

if _CWD_FIRST:
    sys.path.insert(0, "")

STUDENT_MODULE = "solucao"
CHANNEL_FD = 3
# Bound before any student code runs: code that rebinds json.loads or json.dumps (to make any file
# "parse") only changes its own module's view, never what crosses to the trusted side.
_encode = json.JSONEncoder(default=repr).encode
_decode = json.JSONDecoder().decode
_write, _read, _exit = os.write, os.read, os._exit


class AgentLoopRunaway(BaseException):
    """The trusted side stopped serving: far more model or tool calls than the script has."""


def plain(value):
    """A JSON copy of what crosses (the student's objects are never shared)."""
    try:
        return _decode(_encode(value))
    except (TypeError, ValueError, RecursionError):
        return {"<não serializável>": repr(value)[:200]}


def _frames(exc, filename):
    import traceback  # only when something failed: it costs every run ~3 ms at start

    return [[f.lineno, f.name, (f.line or "").strip()]
            for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]


# spawn and forkserver children are fresh interpreters where `solucao` (made from source, never a
# file) cannot be imported, so a function or class of it sent to them (Pool.map, ProcessPoolExecutor,
# a Process target) would not unpickle. What multiprocessing pickles of it carries the source instead,
# run once per process into a module of that name, as spawn re-runs a main module.
_REBUILD = ("(lambda sys: __import__('functools').reduce(getattr, Q.split('.'), sys.modules.get('solucao') or "
            "(lambda m: [sys.modules.__setitem__('solucao', m), m.__dict__.__setitem__('__file__', F), "
            "exec(compile(S, F, 'exec', dont_inherit=True), m.__dict__), m][-1])(type(sys)('solucao'))))"
            "(__import__('sys'))")


def _carry_source(source, filename):
    """Give multiprocessing's pickler that recipe once it is imported (never imported for it: a run
    that does not use multiprocessing pays nothing)."""
    function = type(_carry_source)

    def reducer_override(self, obj):
        if isinstance(obj, (type, function)) and getattr(obj, "__module__", None) == STUDENT_MODULE:
            qualname = getattr(obj, "__qualname__", "")
            if qualname and "<" not in qualname:
                return eval, (_REBUILD, {"S": source, "F": filename, "Q": qualname})
        return NotImplemented

    class Finder:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if name != "multiprocessing.reduction":
                return None
            path_finder = next((f for f in sys.meta_path if getattr(f, "__name__", "") == "PathFinder"), None)
            spec = path_finder.find_spec(name, path, target) if path_finder else None
            if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
                return spec
            spec.loader = Loader(spec.loader)  # a loader of its own: one zipimporter loads many modules
            return spec

    class Loader:
        def __init__(self, inner):
            self.inner = inner

        def __getattr__(self, name):  # get_source, get_code... for tracebacks and inspect
            return getattr(self.inner, name)

        def create_module(self, spec):
            return self.inner.create_module(spec)

        def exec_module(self, module):
            self.inner.exec_module(module)
            module.ForkingPickler.reducer_override = reducer_override

    sys.meta_path.insert(0, Finder)


def call_job(code_or_source, filename, job, call_model, execute_tool, returned):
    """Load the student's code and call `job["function"]`; returns the (untrusted) report."""
    report = {"kind": "ok", "phase": "load"}
    try:
        if isinstance(code_or_source, str):
            import linecache
            linecache.cache[filename] = (len(code_or_source), None,
                                         code_or_source.splitlines(keepends=True), filename)
            code = compile(code_or_source, filename, "exec", dont_inherit=True)
            _carry_source(code_or_source, filename)
        else:
            code = code_or_source
        module = type(sys)(STUDENT_MODULE)  # types.ModuleType, without importing types
        module.__file__ = filename
        sys.modules[STUDENT_MODULE] = module
        exec(code, vars(module))
        report["phase"] = "call"
        fn = vars(module).get(job["function"])
        if not callable(fn):
            report["kind"] = "missing"
        elif job["function"] == "run_agent":
            report["value"] = _summary(fn(job["task"], job["tools"], call_model, execute_tool))
        else:
            for state in job["states"]:
                fn(state)
                returned()
    except KeyboardInterrupt:
        raise  # the page's "Parar"
    except SystemExit as exc:
        report.update(kind="exit", exc_type="SystemExit", exc_text=repr(exc.code))
    except BaseException as exc:  # noqa: BLE001 - any fault of the student's code is reported
        frames = _frames(exc, filename)
        report.update(kind="exception", exc_type=type(exc).__name__, exc_text=str(exc)[:2000],
                      lineno=frames[-1][0] if frames else None, frames=frames[-20:])
        if isinstance(exc, SyntaxError) and exc.filename == filename:
            report["syntax"] = {"lineno": exc.lineno, "offset": exc.offset, "msg": exc.msg,
                                "text": exc.text}
            report["lineno"] = exc.lineno
    return report


def _summary(value):
    """What run_agent returned, for the page's "Executar" only (turns and tokensUsed, if a dict)."""
    if not isinstance(value, dict):
        return type(value).__name__
    return {k: value[k] for k in ("turns", "tokensUsed") if isinstance(value.get(k), (int, float))}


class _Channel:
    """JSON lines over fd 3: one request out, one reply back (the supervisor sees every write)."""

    def __init__(self, fd):
        self.fd = fd
        self.buffer = b""

    def send(self, message):
        data = (_encode(message) + "\n").encode("utf-8")
        while data:
            data = data[_write(self.fd, data):]

    def ask(self, message):
        self.send(message)
        while b"\n" not in self.buffer:
            chunk = _read(self.fd, 1 << 16)
            if not chunk:
                _exit(3)  # the supervisor is gone
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return _decode(line.decode("utf-8"))


def main():
    channel = _Channel(CHANNEL_FD)
    setup = channel.ask({"t": "hello"})
    filename, job = setup["filename"], setup["job"]
    sys.argv = [filename]

    def call_model(*args, tools=None, messages=None, **kwargs):
        if args or messages is None:
            raise TypeError("call_model deve ser chamado como call_model(tools=..., messages=...)")
        reply = channel.ask({"t": "model", "tools": plain(tools), "messages": plain(messages)})
        if "response" not in reply:
            raise AgentLoopRunaway()
        return reply["response"]

    def execute_tool(name, input):
        reply = channel.ask({"t": "tool", "name": plain(name), "input": plain(input)})
        if "error" in reply:
            raise KeyError(reply["error"])
        if "result" not in reply:
            raise AgentLoopRunaway()
        return reply["result"]

    def returned():
        channel.ask({"t": "returned"})

    report = call_job(setup["source"], filename, job, call_model, execute_tool, returned)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - a closed or replaced stdout is the student's business
        pass
    channel.send(dict(report, t="end"))
    sys.exit(0 if report["kind"] == "ok" else 1)


if __name__ == "__main__":
    main()
