"""Reduced mode's look thread: one thread of the supervisor fenced as the student's process is
(no_new_privs, the run's Landlock ruleset, no capabilities when root), which performs the calls that
only look at a path for the run (looks.py) and forks the run's child, so that child's Landlock domain
nests in the thread's (Landlock lets a domain reach /proc/<pid> only of its own or nested domains).
The fence is per thread on Linux and is never lifted; the supervisor's main thread stays unfenced."""

from __future__ import annotations

import os
import threading

from .. import inside
from . import landlock
from .linux import PR_SET_NO_NEW_PRIVS, libc



class LookThread:
    """`call(fn, *args)` runs fn in the fenced thread and returns its result (or raises its
    exception) in the caller; the caller waits meanwhile, so the two never run Python at once."""

    def __init__(self, ruleset_fd: int | None):
        self._ruleset_fd = ruleset_fd
        # A pair of pipes, one byte each way: measured at ~3 µs a round trip here, against ~6.5 µs for
        # two threading.Lock objects used as signals (tests/benchmarks/bench_lookthread.py).
        self._go_r, self._go_w = os.pipe2(os.O_CLOEXEC)
        self._done_r, self._done_w = os.pipe2(os.O_CLOEXEC)
        self._job = None
        self._result = None
        self.fenced: dict = {}
        # Whether the creating (main) thread has the run's rights for what Landlock does not fence:
        # not root, no capability. Then looks.py answers stat-like calls there, without a hand-off.
        self.same_rights = os.geteuid() != 0 and _no_capabilities()
        self._thread = threading.Thread(target=self._serve, name="olhar", daemon=True)
        self._thread.start()
        os.read(self._done_r, 1)  # the fence is in place (or failed) before any call
        if "error" in self.fenced:
            self.close()
            raise OSError(f"a thread de consulta não se cercou: {self.fenced['error']}")

    def call(self, fn, *args):
        self._job = (fn, args)
        os.write(self._go_w, b"x")
        os.read(self._done_r, 1)
        value, error = self._result
        self._result = None
        if error is not None:
            raise error
        return value

    def fork(self, child) -> int:
        """os.fork() from the fenced thread: `child()` runs in the new process and never returns."""
        return self.call(fork, child)

    def close(self):
        if self._thread.is_alive():
            self._job = None
            os.write(self._go_w, b"x")
            self._thread.join()
        for fd in (self._go_r, self._go_w, self._done_r, self._done_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def _serve(self):
        try:
            self.fenced = fence_this_thread(self._ruleset_fd)
        except OSError as exc:
            self.fenced = {"error": str(exc)}
            os.write(self._done_w, b"x")
            return
        os.write(self._done_w, b"x")
        while True:
            os.read(self._go_r, 1)
            job = self._job
            if job is None:
                return
            fn, args = job
            try:
                self._result = (fn(*args), None)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, raised there
                self._result = (None, exc)
            self._job = None
            os.write(self._done_w, b"x")


def fence_this_thread(ruleset_fd: int | None) -> dict:
    """The calling thread's own fence, as the run's process gets it (inside.confine): {"landlock": bool,
    "capabilities_dropped": bool}. Raises OSError when a part that applies here fails."""
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError("PR_SET_NO_NEW_PRIVS")
    if ruleset_fd is not None and not landlock.restrict_self(ruleset_fd):
        raise OSError("landlock_restrict_self")
    dropped = False
    if os.geteuid() == 0:
        # Root without a sandbox: this thread keeps uid 0 but no capability, like the run.
        if not inside.drop_capabilities():
            raise OSError("capset")
        dropped = True
    return {"landlock": ruleset_fd is not None, "capabilities_dropped": dropped}


def fork(child) -> int:
    """`child()` run in a new process of ours, which it never returns from (it execs or exits)."""
    pid = os.fork()
    if pid == 0:
        try:
            child()
        finally:
            os._exit(127)
    return pid


def _no_capabilities() -> bool:
    """The calling thread's effective capability set is empty."""
    try:
        with open("/proc/thread-self/status", "rb") as f:
            for line in f:
                if line.startswith(b"CapEff:"):
                    return int(line.split()[1], 16) == 0
    except OSError:
        pass
    return False


class Direct:
    """The same interface without a thread, for a supervisor driven outside a run (unit tests)."""

    same_rights = True

    @staticmethod
    def call(fn, *args):
        return fn(*args)
