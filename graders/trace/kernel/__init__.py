"""The kernel tap (CLI): runs student code under a seccomp user-notification filter and performs
every file-system mutation itself, so the trace records exactly what reached the disk.

Trusted side only: this package never runs student code. The run's process installs the filter
(`seccomp`) itself (graders/trace/inside.py): forked by `run` and exec'd into the runner, or forked
from a warm interpreter that has the runner loaded (`zygote`); every notified call of that
process, its threads and its children
comes to one `Supervisor`, which reads the caller (`target`), then emulates the call (`opens`,
`writes`, `copies`, `names`, `durability`, `metadata`), follows shared mappings (`mappings`), checks
or refuses it (`refusals`), and answers. It lets the kernel run a call itself only when its decision
read no memory of the caller's (the kernel would read the arguments again): a read-only open is let
through on its flags alone, its path read afterwards only to note a sign of the grader for the
report (`reads`). In reduced mode the run's own temp folder stands in for the machine's /tmp (names
are mapped in `target.resolve`), and once the student's code has started every call that only looks
at a path is performed by the supervisor on its copy of the path (`looks`), in a thread fenced as the
run is, from which the run's child is also forked (`lookthread`). `server` is the same supervisor as a
long-lived server inside the CLI's sandbox.
"""

import importlib

# Loaded on first use (PEP 562): the CLI imports this package only for `landlock` (its reduced-mode
# fences), and the supervisor's modules (libseccomp, the runner's compilation...) cost it ~40 ms
# of every start; the sandbox's server imports them itself.
_LAZY = {"prepare_supervisor": "run", "run_traced": "run", "build_filter": "seccomp", "_build_filter": "seccomp",
         "syscall_nr": "seccomp", "serve": "server", "wipe": "server", "Supervisor": "supervisor"}

__all__ = ["Supervisor", "build_filter", "prepare_supervisor", "run_traced", "serve", "syscall_nr", "wipe"]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name.lstrip("_"))  # _build_filter: the name tests/trace use
    globals()[name] = value
    return value
