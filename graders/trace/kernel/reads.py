"""Read-only opens: let through on their flags alone, and, once the student's code has started, the
path noted when it is one of the grader's visible signs (/proc, a container's marker files), for the
class report's "inspeciona o corretor" hint. A hint only: it never changes a call's answer or a grade.

Under bubblewrap the answer (SECCOMP_USER_NOTIF_FLAG_CONTINUE) is fixed by the flags register before
the path is read, so the kernel's own second reading of the path decides nothing of ours. The note is
what the path held when the supervisor looked: a program that rewrites its own path from another task
during the call can hide a read from the hint (never from a fence: bubblewrap fences reads).
In reduced mode, once the student's code has started, a read-only open is performed by the supervisor
on the path it copied (looks.py), which notes the hint from that same copy.
"""

from __future__ import annotations

import posixpath

from .errors import Refused
from .linux import AT_FDCWD, U32
from .seccomp import FLAG_CONTINUE, WRITE_OPEN_BITS, syscall_nr
from .target import Task

WRITE_BITS = 0
for _bit in WRITE_OPEN_BITS:
    WRITE_BITS |= _bit
# Where a read can show the grader: a process's own or another's /proc entries, the list of
# processes, a container's marker files. Paths that lead nowhere near these skip the resolution.
SIGN_PREFIXES = (b"/proc", b"/sys/fs/cgroup", b"/.dockerenv", b"/run/.containerenv", b"/var/run/.containerenv",
                 b"/etc/mtab")
MARKERS = ("/.dockerenv", "/run/.containerenv")
# The resolved paths sign_of can show (/var/run and /etc/mtab lead to these once their links are followed).
SHOWN_PREFIXES = ("/proc", "/sys/fs/cgroup", "/.dockerenv", "/run/.containerenv")
MAX_PATHS = 50  # distinct paths kept per run (the count goes on)


def open_calls() -> dict[int, tuple]:
    """Syscall number -> (dirfd argument or None, path argument, flags argument)."""
    out = {}
    for name, where in (("open", (None, 0, 1)), ("openat", (0, 1, 2))):
        nr = syscall_nr(name)
        if nr is not None:
            out[nr] = where
    return out


class Reads:
    """Supervisor mixin: self.code_started (set by the channel's first "hello"), self.probes
    ({shown path: times opened}), self.open_calls (from open_calls())."""

    def let_read_through(self, nid, tid, nr, args) -> bool:
        """Answer an open that cannot write (CONTINUE) and note its path; False for one that may
        write, which the open handlers perform themselves (opens.py)."""
        dirfd_arg, path_arg, flags_arg = self.open_calls[nr]
        if args[flags_arg] & U32 & WRITE_BITS:
            return False
        if self.reduced and self.code_started:
            return False  # performed by the supervisor on its copy of the path (looks.py)
        # Before the runner asks for the student's code, every open is the interpreter's own start.
        if self.code_started:
            self.note_probe(tid, AT_FDCWD if dirfd_arg is None else args[dirfd_arg], args[path_arg])
        self.respond(nid, flags=FLAG_CONTINUE)
        return True

    def note_probe(self, tid, dirfd, address, raw: bytes | None = None):
        try:
            if raw is None:
                raw = self.read_path(tid, address)
            if raw.startswith(b"/"):
                lexical = b"/" + posixpath.normpath(raw).lstrip(b"/")
                inside_root = any(raw.startswith(r[1].encode("utf-8", "surrogateescape") + b"/") for r in self.roots)
                # Only a path under a run's own folder can hold a link the student made; ".." may climb anywhere.
                if not (lexical.startswith(SIGN_PREFIXES) or inside_root or b".." in raw):
                    return
            task = Task(tid)
            where = self.resolve(task, dirfd, raw, True)
            if where[0] == "fd":
                return  # /proc/<pid>/fd/<n>: one of the run's own files, reopened
            self.note_sign(task, where[0].rstrip("/") + "/" + where[1] if where[1] != "." else where[0])
        except (Refused, OSError, ValueError):
            return
        except Exception:  # noqa: BLE001 - a hint must never cost a run: a surprise here notes nothing
            return

    def note_sign(self, task, full: str):
        """Count `full` (a resolved path the run opened for reading) when it shows the grader."""
        if not full.startswith(SHOWN_PREFIXES):
            return  # sign_of would say None; skipped before it asks for the caller's tgid
        try:
            shown = sign_of(full, task.tgid)
        except (Refused, ValueError):
            return
        if shown is not None and (shown in self.probes or len(self.probes) < MAX_PATHS):
            self.probes[shown] = self.probes.get(shown, 0) + 1

    def probes_out(self) -> list[dict]:
        return [{"path": path, "count": count} for path, count in self.probes.items()]


def sign_of(full: str, tgid: int) -> str | None:
    """The path as the report shows it (the process's own entries as /proc/self/…), or None when it
    shows nothing of the grader: system-wide /proc files, the process's own descriptor table."""
    parts = [p for p in full.split("/") if p]
    if not parts:
        return None
    if parts[0] == "proc":
        if len(parts) == 1:
            return "/proc"  # the list of processes
        who = parts[1]
        if who == str(tgid) or who in ("self", "thread-self"):
            who = "self"
            if parts[2:3] == ["fd"]:
                return None  # its own descriptors (subprocess closes them through /proc/self/fd)
        elif not who.isdigit():
            return None  # /proc/cpuinfo, /proc/meminfo, /proc/sys/…: the machine's, not the grader's
        return "/" + "/".join(["proc", who, *parts[2:]])
    full = "/" + "/".join(parts)
    if full in MARKERS or full.startswith("/sys/fs/cgroup"):
        return full
    return None

