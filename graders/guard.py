"""Run student code in a fresh module, in its own folder, and classify how each call ended.

The student's code may print, raise, loop on the model, call `sys.exit()`/`os._exit()` or
rebind functions of `json`, `os` or of the graders themselves. None of that may crash
the grader or turn into a pass: every call returns an `Outcome`, and tampering is
detected (and undone) by comparing the watched modules before and after.
"""

from __future__ import annotations

import io
import linecache
import os
import random
import sys
import tempfile
import traceback
import types
from dataclasses import dataclass, field

from .crashfs import FileSystemTracer, SimulatedCrash, StudentExit, TooManyOperations
from .fake_agent import AgentLoopRunaway

OUTPUT_LIMIT = 20_000
STUDENT_MODULE = "solucao"
SYSTEM_TMP = "tmp-do-sistema"  # what tempfile.gettempdir() returns while student code runs
WATCHED_MODULES = (
    "builtins", "os", "posix", "io", "_io", "json", "json.decoder", "json.encoder", "json.scanner",
    "sys", "copy", "tempfile", "shutil", "pathlib", "posixpath", "traceback", "types", "tomllib",
)
# Bridges out of the sandbox: in Pyodide, `js` reaches the worker's own messaging.
# They cannot be imported while student code runs.
BLOCKED_MODULES = ("js", "pyodide", "pyodide.ffi", "pyodide.code", "pyodide_js", "_pyodide", "_pyodide_core", "ctypes", "_ctypes")
# Attributes that change on their own while code runs.
_VOLATILE = frozenset({
    "_", "__warningregistry__", "last_type", "last_value", "last_traceback", "last_exc",
    "stdout", "stderr", "stdin", "tempdir", "_name_sequence",
})


class CodeError(Exception):
    """The submission cannot even be loaded (syntax error, missing function...)."""


class BoundedOutput(io.TextIOBase):
    """Collects what the student prints, up to a limit, so huge output costs nothing."""

    def __init__(self, limit: int = OUTPUT_LIMIT):
        self.parts: list[str] = []
        self.size = 0
        self.limit = limit
        self.truncated = False

    def writable(self):
        return True

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        room = self.limit - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(len(text), room)
        if len(text) > room:
            self.truncated = True
        return len(text)

    def getvalue(self) -> str:
        return "".join(self.parts) + ("\n… [saída cortada]" if self.truncated else "")


@dataclass
class Outcome:
    kind: str  # ok, exception, crash, exit, runaway, tampered, missing
    value: object = None
    message: str = ""
    tampered: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.kind == "ok"


def compile_student(source: str, filename: str):
    # Tracebacks quote the student's lines, as they would for a file on disk.
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    try:
        return compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        line = (exc.text or "").strip()
        where = f"linha {exc.lineno}" + (f", coluna {exc.offset}" if exc.offset else "")
        detail = f": `{line}`" if line else ""
        raise CodeError(f"Erro de sintaxe na {where} ({exc.msg}){detail}. Corrija e verifique de novo.") from None
    except (ValueError, TypeError) as exc:  # e.g. NUL bytes in the source
        raise CodeError(f"O código não pôde ser compilado: {exc}.") from None


def describe_exception(exc: BaseException, filename: str) -> str:
    """`KeyError: 'x' (linha 27, em run_agent: `block = ...`)`, pointing into the student's file."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    name = type(exc).__name__
    text = f"{name}: {exc}" if str(exc) else name
    if frames:
        last = frames[-1]
        code = f": `{last.line.strip()}`" if last.line else ""
        return f"{text} (linha {last.lineno}, em {last.name}{code})"
    return text


# --- tamper detection ---------------------------------------------------------------------


def _watched_namespaces():
    for name in WATCHED_MODULES:
        module = sys.modules.get(name)
        if module is not None:
            yield name, vars(module)
    for name, module in list(sys.modules.items()):
        if name == "graders" or name.startswith("graders."):
            yield name, vars(module)
            for attr, value in list(vars(module).items()):
                if isinstance(value, type) and getattr(value, "__module__", "") == name:
                    yield f"{name}.{attr}", value.__dict__
    import json
    import pathlib

    for cls in (json.JSONDecoder, json.JSONEncoder, pathlib.PurePath, pathlib.Path):
        yield f"{cls.__module__}.{cls.__qualname__}", cls.__dict__


def snapshot() -> dict:
    """The watched namespaces as they are now; taken while nothing of ours is patched."""
    snap = {ns_name: (namespace, dict(namespace)) for ns_name, namespace in _watched_namespaces()}
    snap["<sys.modules>"] = (None, {k: sys.modules.get(k) for k in WATCHED_MODULES})
    return snap


def changes_since(snap: dict) -> list[str]:
    changed = []
    for ns_name, (namespace, before) in snap.items():
        if namespace is None:
            changed += [f"sys.modules[{k!r}]" for k, v in before.items() if sys.modules.get(k) is not v]
            continue
        differs = len(namespace) != len(before)
        for key, value in before.items():
            if key not in _VOLATILE and namespace.get(key, _MISSING) is not value:
                changed.append(f"{ns_name}.{key}")
                differs = True
        if differs:
            changed += [f"{ns_name}.{k}" for k in namespace.keys() - before.keys() if k not in _VOLATILE]
    return sorted(set(changed))


def restore(snap: dict):
    for ns_name, (namespace, before) in snap.items():
        if namespace is None:
            for key, module in before.items():
                if module is not None:
                    sys.modules[key] = module
            continue
        if isinstance(namespace, types.MappingProxyType):
            cls = _class_for(ns_name)
            if cls is None:
                continue
            for key in [k for k in namespace if k not in before and k not in _VOLATILE]:
                try:
                    delattr(cls, key)
                except (AttributeError, TypeError):
                    pass
            for key, value in before.items():
                if namespace.get(key, _MISSING) is not value:
                    try:
                        setattr(cls, key, value)
                    except (AttributeError, TypeError):
                        pass
            continue
        for key in [k for k in namespace if k not in before and k not in _VOLATILE]:
            del namespace[key]
        namespace.update(before)


def _class_for(qualified: str):
    module_name, _, attr = qualified.rpartition(".")
    module = sys.modules.get(module_name)
    return getattr(module, attr, None) if module is not None else None


_MISSING = object()


# --- running ---------------------------------------------------------------------------


class Sandbox:
    """One run of student code: a fresh folder, a tracer, captured output, no way out."""

    def __init__(self, code, filename: str, tracer_factory, output: BoundedOutput, baseline: dict | None = None):
        # The pristine state of the watched modules; every call is compared with it afterwards.
        self.baseline = baseline if baseline is not None else snapshot()
        self.code = code
        self.filename = filename
        self.output = output
        self.root = tempfile.mkdtemp(prefix="correcao-")
        self.workdir = os.path.join(self.root, "trabalho")
        self.systemp = os.path.join(self.root, SYSTEM_TMP)
        os.mkdir(self.workdir)
        os.mkdir(self.systemp)
        self.tracer: FileSystemTracer = tracer_factory(self.workdir)
        self.tracer.student_file = filename
        self.module = None
        self.tampered: list[str] = []

    def call(self, fn, *args, **kwargs) -> Outcome:
        """Run fn under the tracer, in the sandbox folder; never raises for student faults."""
        saved_cwd = os.getcwd()
        saved_streams = (sys.stdout, sys.stderr, sys.stdin)
        saved_tempdir = tempfile.tempdir
        saved_bytecode = sys.dont_write_bytecode
        saved_recursion = sys.getrecursionlimit()
        saved_abort, saved_kill = os.abort, os.kill
        os.chdir(self.workdir)
        sys.stdout = sys.stderr = self.output
        sys.stdin = io.StringIO("")
        tempfile.tempdir = self.systemp
        sys.dont_write_bytecode = True
        guards = {"abort": _refuse("os.abort()"), "kill": _refuse("os.kill()")}
        os.abort, os.kill = guards["abort"], guards["kill"]
        saved_names = tempfile._name_sequence
        tempfile._name_sequence = _seeded_names()
        blocked = {name: sys.modules.get(name, _MISSING) for name in BLOCKED_MODULES}
        sys.modules.update(dict.fromkeys(BLOCKED_MODULES))  # None: `import js` raises ImportError
        seal = self._seal()
        self.tracer.install()
        try:
            value = fn(*args, **kwargs)
            outcome = Outcome("ok", value)
        except SimulatedCrash:
            outcome = Outcome("crash")
        except TooManyOperations:
            outcome = Outcome("runaway", message="o código fez operações de arquivo demais (mais de 2000)")
        except AgentLoopRunaway:
            outcome = Outcome("runaway", message="run_agent chamou o modelo ou as ferramentas muito mais vezes do que o roteiro prevê")
        except SystemExit as exc:
            outcome = Outcome("exit", message=f"o código chamou sys.exit({'' if exc.code is None else repr(exc.code)})")
        except StudentExit as exc:
            outcome = Outcome("exit", message=f"o código chamou {exc}")
        except KeyboardInterrupt:
            raise  # the page's "Parar" button: stop grading altogether
        except RecursionError as exc:
            outcome = Outcome("exception", message=describe_exception(exc, self.filename))
        except BaseException as exc:  # noqa: BLE001 - any student fault becomes a verdict
            outcome = Outcome("exception", exc, describe_exception(exc, self.filename))
        finally:
            still_active = self.tracer.active()
            rebound = self.tracer.uninstall()
            rebound += [f"os.{name}" for name, guard in guards.items() if getattr(os, name) is not guard]
            tempfile._name_sequence = saved_names
            for name, module in blocked.items():
                if module is _MISSING:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = module
            os.abort, os.kill = saved_abort, saved_kill
            sys.stdout, sys.stderr, sys.stdin = saved_streams
            tempfile.tempdir = saved_tempdir
            sys.dont_write_bytecode = saved_bytecode
            sys.setrecursionlimit(saved_recursion)
            os.chdir(saved_cwd)
            # Everything of ours is undone now: any other difference is the student's doing.
            tampered = sorted(set(rebound + changes_since(self.baseline) + self.tracer.introspection + self._broken_seal(seal, still_active)))
            if tampered:
                restore(self.baseline)
        if tampered:
            self.tampered.extend(tampered)
            return Outcome("tampered", message="o código mexe em partes do Python ou do próprio corretor: " + ", ".join(tampered[:4]), tampered=tampered)
        return outcome

    def _seal(self):
        """What the student's code can reach through the objects it is handed, and must not change."""
        tracer = self.tracer
        return {
            "o estado do simulador de quedas": (tracer.plan, id(tracer.plan), tracer.max_ops, tracer.root,
                                                id(tracer.on_op), tuple(sorted(vars(tracer)))),
        }

    def _broken_seal(self, seal, still_active: bool) -> list[str]:
        now = self._seal()
        broken = [name for name, value in seal.items() if now[name] != value]
        if not still_active:
            broken.append("o vigia de auditoria do simulador")
        if any(op.index != i for i, op in enumerate(self.tracer.trace.ops, start=1)):
            broken.append("o registro de operações do simulador")
        return broken

    def load(self) -> Outcome:
        """Execute the module body; on success `self.module` holds its namespace."""
        module = types.ModuleType(STUDENT_MODULE)
        module.__file__ = self.filename
        namespace = vars(module)
        outcome = self.call(exec, self.code, namespace)
        if outcome.ok:
            self.module = namespace
        return outcome

    def function(self, name: str):
        fn = (self.module or {}).get(name)
        return fn if callable(fn) else None

    def cleanup(self):
        import shutil

        shutil.rmtree(self.root, ignore_errors=True)


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
