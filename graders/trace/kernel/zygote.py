"""The warm interpreter: one Python of the run's user, started once per server with the runner
already loaded, that forks each run's process (graders/trace/inside.py `serve_forks`), so a run
pays a fork instead of an interpreter start. Under bubblewrap it lives beside the runs in their PID
namespace, so the end of a run spares it by name (run.py `_kill_and_reap`)."""

from __future__ import annotations

import fcntl
import os
import signal
import socket
from typing import Callable

# A fork answers in milliseconds; this much silence means the warm interpreter is stuck or gone (the
# run then starts cold, its time limit counted from there: run.run_traced).
ANSWER_TIMEOUT = 2.0


class Zygote:
    """`fork(out_w, chan) -> pid` of the run's process, already our child; `close()`.

    The interpreter is forked (from the fenced look thread in reduced mode) and exec'd, so it holds
    nothing of the supervisor's, and it never runs student code: each run's process seals itself
    (inside.seal) right after the fork, before it asks for the student's code. After each fork the warm process
    exits and the next one, forked beside the run's, takes its place; both are our children then
    (we are their subreaper), and the run's is in a session of its own, as the cold start's is.
    """

    def __init__(self, fork: Callable[[Callable[[], None]], int], python: str, env: dict, settings: dict,
                 reduced: bool):
        """`fork(function) -> pid`: how the server forks (LookThread.fork in reduced mode); `settings`:
        the runs' confine settings (run.confine_settings); `reduced`: which filter the runs load."""
        from .run import _high_fd, bootstrap  # noqa: PLC0415 - run.py is the module that uses us

        text, data = bootstrap(reduced, warm_settings(settings))
        self.pid = None
        self.group = None
        ours, theirs = socket.socketpair()
        self.sock = ours
        theirs_fd = _high_fd(theirs.detach())
        ruleset = settings.get("landlock_fd")
        self.pid = fork(lambda: _start(python, env, theirs_fd, ruleset, settings["work"], text))
        self.group = self.pid  # it leads a session of its own (_start), and so does every twin after it
        os.close(theirs_fd)
        ours.settimeout(ANSWER_TIMEOUT)
        self.reader = ours.makefile("rb")
        try:
            ours.sendall(data)
        except OSError:
            self.close()
            raise

    def fork(self, out_w: int, chan: int) -> int:
        """The run's process, forked with `out_w` and `chan` as its output pipe and channel. Raises
        OSError when the warm interpreter does not answer (closed then: the caller starts cold)."""
        try:
            socket.send_fds(self.sock, [b"F"], [out_w, chan])
            line = self.reader.readline(64)
            run, following = (int(x) for x in line.split())
        except (OSError, ValueError) as exc:
            self.close()
            raise OSError("o interpretador pronto não respondeu") from exc
        try:
            os.waitpid(self.pid, 0)  # it exits at once; its two children are ours from then on
        except ChildProcessError:
            pass
        self.pid = following
        return run

    @property
    def alive(self) -> bool:
        return self.pid is not None

    def spared(self) -> frozenset:
        """The pids a run may not reach and the end of a run does not kill: the warm interpreter's and
        its group's (the number of the session it leads; the kernel lends it to no other process
        while a twin is in that group)."""
        return frozenset((self.pid, self.group)) if self.pid is not None else frozenset()

    def reaped(self, pid: int):
        """Told of every pid reaped with waitpid(-1): the warm interpreter's is forgotten at once (its
        number is free for reuse from then on)."""
        if pid is not None and pid == self.pid:
            self.pid = None
            self.close()

    def close(self):
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            self.pid = None
        try:
            self.reader.close()
            self.sock.close()
        except (OSError, AttributeError):
            pass


RULESET_FD = 4  # where the warm interpreter keeps the Landlock ruleset each run restricts itself with


def warm_settings(settings: dict) -> dict:
    """The confine settings as the warm interpreter sees them (its ruleset on RULESET_FD)."""
    if settings.get("landlock_fd") is None:
        return dict(settings)
    return dict(settings, landlock_fd=RULESET_FD)


def _start(python, env, sock_fd, ruleset, work, text):
    """In the process forked from the look thread: the warm interpreter's descriptors (fd 3 talks to
    us, the Landlock ruleset on RULESET_FD, nothing else) and its exec."""
    try:
        os.setsid()
        os.chdir(work)
        sock_fd = fcntl.fcntl(sock_fd, fcntl.F_DUPFD, 10)
        if ruleset is not None:
            ruleset = fcntl.fcntl(ruleset, fcntl.F_DUPFD, 10)
        null = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.dup2(sock_fd, 3)
        if ruleset is not None:
            os.dup2(ruleset, RULESET_FD)
        os.closerange(RULESET_FD + (ruleset is not None), 1 << 16)
        os.execve(python, [python, "-c", text], env)
    except BaseException:  # noqa: BLE001
        pass
    os._exit(127)
