"""Signs that a submission inspects the grader, for the class report ("inspeciona o corretor: …"): what
its run opened under /proc (recorded by the kernel tap, graders/trace/kernel/reads.py) and the places
in its source that reach for the grader's traces or internals (read with `ast`, never run).

A reading aid, never a verdict: nothing here changes a criterion or a grade. The source half is
static on purpose (it may name code that never ran); the run half names paths only, because the
trace records no Python line for a read.
"""

from __future__ import annotations

import ast

RUN, SOURCE = "execução", "código"
MAX_LINES = 5  # line numbers listed per sign
MAX_SIGNS = 20  # signs kept per exercise

# module -> the attributes of it that look at the grader, or None when importing the module is a
# sign by itself.
MODULE_SIGNS = {
    "ctypes": None,
    "_ctypes": None,
    "inspect": None,
    "js": None,  # Pyodide's bridge to the page that runs the browser's grader
    "pyodide": None,
    "sys": {"orig_argv", "_getframe", "_current_frames", "settrace", "setprofile", "modules", "flags"},
    "gc": {"get_objects", "get_referrers", "get_referents"},
    # Not os.fork: a child is traced until it ends like the rest of the run, an honest way to work.
    "os": {"register_at_fork", "getppid"},
    "threading": {"settrace", "setprofile"},
}
# Attributes that reach into a function, a frame or a traceback (whoever owns it).
DUNDER_SIGNS = frozenset({"__closure__", "__globals__", "__code__", "__self__", "__wrapped__", "cell_contents",
                          "f_back", "f_locals", "f_globals", "tb_frame", "gi_frame", "cr_frame", "ag_frame"})
# The same attributes named in a string (getattr(sys, "orig_argv", [])).
NAMED_BY_TEXT = {attr: f"{module}.{attr}" for module, attrs in MODULE_SIGNS.items() if attrs
                 for attr in attrs if attr not in ("modules", "flags")}
# Attributes no other object has: reached through any expression (__import__("gc").get_objects()).
DISTINCTIVE = {attr: f"{module}.{attr}" for module, attr in (
    ("sys", "orig_argv"), ("sys", "_getframe"), ("sys", "_current_frames"), ("gc", "get_objects"),
    ("gc", "get_referrers"), ("gc", "get_referents"))}
# Texts that only code looking for the grader's sandbox has a use for.
WORDS = ("bwrap", "seccomp", "nspid", "tracerpid", "/newroot", "/opt/corretor", "mountinfo", "/.dockerenv",
         "/run/.containerenv", "/sys/fs/cgroup", "graders", "filesystemtracer")


def _path_sign(text: str) -> bool:
    """A /proc path (not the process's own descriptors, which honest code lists through subprocess)."""
    at = text.find("/proc")
    if at < 0 or (at and text[at - 1] not in "'\" ("):
        return False
    rest = text[at + 5:]
    if rest and rest[0] not in "/{":
        return False  # "/processos", "/procurar": not /proc
    return not rest.startswith(("/self/fd", "/thread-self/fd"))


def _constant_text(node) -> str | None:
    """A string (or bytes) constant, or an f-string with "{…}" where its values go."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
        value = node.value
        return value.decode("latin-1") if isinstance(value, bytes) else value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            parts.append(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{…}")
        return "".join(parts)
    return None


class _Finder(ast.NodeVisitor):
    def __init__(self):
        self.found: dict[str, list[int]] = {}
        self.aliases: dict[str, str] = {}  # local name -> module (import x as y)
        self.names: dict[str, str] = {}  # local name -> "module.attr" (from x import y)

    def add(self, what: str, node):
        lines = self.found.setdefault(what, [])
        if node.lineno not in lines:
            lines.append(node.lineno)

    def visit_Import(self, node):
        for alias in node.names:
            top = alias.name.split(".")[0]
            self.aliases[(alias.asname or alias.name).split(".")[0]] = top
            if top in MODULE_SIGNS and MODULE_SIGNS[top] is None:
                self.add(f"usa {top}", node)

    def visit_ImportFrom(self, node):
        top = (node.module or "").split(".")[0]
        if node.level:
            return
        for alias in node.names:
            self.names[alias.asname or alias.name] = f"{top}.{alias.name}"
        if top not in MODULE_SIGNS:
            return
        if MODULE_SIGNS[top] is None:
            self.add(f"usa {top}", node)
            return
        for alias in node.names:
            if alias.name in MODULE_SIGNS[top]:
                self.add(f"usa {top}.{alias.name}", node)

    def visit_Attribute(self, node):
        if node.attr in DUNDER_SIGNS:
            self.add(f"lê {node.attr}", node)
        module = self.aliases.get(node.value.id) if isinstance(node.value, ast.Name) else None
        wanted = MODULE_SIGNS.get(module or "", set())
        if wanted and node.attr in wanted:
            self.add(f"usa {module}.{node.attr}", node)
        elif node.attr in DISTINCTIVE:
            self.add(f"usa {DISTINCTIVE[node.attr]}", node)
        self.generic_visit(node)

    def visit_Call(self, node):
        # mmap.mmap(-1, …): an anonymous page another process can share (the way to race the grader's
        # checks); a mapping of the submission's own file is ordinary code.
        func = node.func
        named = ((isinstance(func, ast.Attribute) and func.attr == "mmap" and isinstance(func.value, ast.Name)
                  and self.aliases.get(func.value.id) == "mmap")
                 or (isinstance(func, ast.Name) and self.names.get(func.id) == "mmap.mmap"))
        if named and node.args and isinstance(node.args[0], ast.UnaryOp) and isinstance(node.args[0].op, ast.USub) \
                and isinstance(node.args[0].operand, ast.Constant) and node.args[0].operand.value == 1:
            self.add("usa mmap anônimo (memória que outro processo pode dividir)", node)
        self.generic_visit(node)

    def visit_Constant(self, node):
        self._text(node)

    def visit_JoinedStr(self, node):
        self._text(node)  # its text pieces are not visited again ("/proc/{…}/cmdline" once), its values are
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                self.visit(value.value)

    def _text(self, node):
        text = _constant_text(node)
        if not text:
            return
        if text in DUNDER_SIGNS:
            self.add(f"lê {text}", node)  # getattr(fn, "__closure__")
        elif text in NAMED_BY_TEXT:
            self.add(f"usa {NAMED_BY_TEXT[text]}", node)  # getattr(sys, "orig_argv", [])
        elif MODULE_SIGNS.get(text, ()) is None:
            self.add(f"usa {text}", node)  # __import__("ctypes"), importlib.import_module("inspect")
        elif _path_sign(text):
            self.add(f"cita {_short(text)}", node)
        else:
            low = text.lower()
            word = next((w for w in WORDS if w in low), None)
            if word:
                self.add(f"cita {_short(text)}", node)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "…"


def source_signs(code: str | None, tree: ast.AST | None = None) -> list[dict]:
    """Each sign in the source, with the lines it is on; [] for code that does not parse. `tree`: the
    code's syntax tree, when the caller parsed it already."""
    if not code:
        return []
    if tree is None:
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return []
    finder = _Finder()
    try:
        finder.visit(tree)
    except RecursionError:
        return []
    out = []
    for what, lines in finder.found.items():
        lines = sorted(lines)
        out.append({"origin": SOURCE, "what": what, "lines": lines[:MAX_LINES], "text": what + _where(lines)})
    return sorted(out, key=lambda s: s["lines"][0])


def _where(lines: list[int]) -> str:
    shown = [str(n) for n in lines[:MAX_LINES]]
    more = " …" if len(lines) > MAX_LINES else ""
    if len(shown) == 1:
        return f" na linha {shown[0]}"
    return f" nas linhas {', '.join(shown[:-1])} e {shown[-1]}{more}"


def run_signs(traces) -> list[dict]:
    """What the runs opened under /proc (or a container's marker files), as the kernel tap saw it."""
    out, seen = [], set()
    for trace in traces:
        for probe in getattr(trace, "probes", None) or []:
            path = probe.get("path") if isinstance(probe, dict) else None
            if not isinstance(path, str) or path in seen:
                continue
            seen.add(path)
            what = "lista os processos (/proc)" if path == "/proc" else f"lê {path}"
            out.append({"origin": RUN, "what": what, "lines": [], "text": what + " ao rodar", "path": path})
    return out


def detect(code: str | None, traces, tree: ast.AST | None = None) -> list[dict]:
    """Every sign for one exercise of one file: the run's first (they happened), then the source's."""
    return (run_signs(traces) + source_signs(code, tree))[:MAX_SIGNS]
