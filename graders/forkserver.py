"""Fork server: inside the sandbox, fork one fresh executor process per run; never runs student code itself.

Started by graders.sandbox with a control socket as stdin. Commands, one JSON line each:
  {"cmd": "init", "source", "filename", "job", "root", "limits", "fence"} -> {"ok": true} | {"ok": false}
  {"cmd": "run"} + a socket passed with SCM_RIGHTS                          -> {"pid": n}
  {"cmd": "reap"}  kill the run and everything it started, wait             -> {"dead": status}
The run's child talks to the controller only through the socket it was given.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys

from .executor import execute, from_json, to_json
from .guard import BoundedOutput, CodeError, compile_student


class LineSocket:
    """JSON lines over a stream socket, with descriptors (SCM_RIGHTS) kept in step with the lines."""

    def __init__(self, sock: socket.socket, limit: int = 64 << 20):
        self.sock = sock
        self.buffer = b""
        self.fds: list[int] = []
        self.limit = limit

    def send(self, message: dict, fds=()):
        data = (json.dumps(message) + "\n").encode("utf-8")
        if fds:
            sent = socket.send_fds(self.sock, [data], list(fds))
            data = data[sent:]
        if data:
            self.sock.sendall(data)

    def recv(self) -> tuple[dict | None, list[int]]:
        """The next message and the descriptors that came with it; (None, []) at the end."""
        while b"\n" not in self.buffer:
            if len(self.buffer) > self.limit:
                raise ValueError("mensagem grande demais")
            data, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, 4)
            self.fds.extend(fds)
            if not data:
                return None, []
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        fds, self.fds = self.fds, []
        return json.loads(line), fds


PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36


def _prctl(option: int, value: int):
    """Linux prctl; elsewhere a no-op (the sandbox itself is Linux-only)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError, ImportError):
        pass


def set_limits(limits: dict):
    import resource

    for name, value in limits.items():
        if hasattr(resource, name):
            try:
                resource.setrlimit(getattr(resource, name), (value, value))
            except (ValueError, OSError):
                pass


class RunChannel:
    """The executor's side of one run's socket: one JSON line out, one JSON line back."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.reader = sock.makefile("rb")

    def send(self, message: dict) -> dict:
        self.sock.sendall((to_json(message) + "\n").encode("utf-8"))
        if message.get("t") == "end":
            return {"a": "go"}
        line = self.reader.readline()
        if not line:
            os._exit(0)  # the controller is gone: nothing left to do
        return from_json(line.decode("utf-8"))


def _child(run_sock: socket.socket, control: socket.socket, code, init: dict):
    import gc

    gc.disable()  # a run is short and memory-capped; a collection would touch (and copy) every page
    control.close()
    os.setsid()
    set_limits(init.get("limits", {}))
    channel = RunChannel(run_sock)
    if init.get("fence"):
        from .fence import install_fence

        install_fence(init["root"])
    try:
        end = execute(code, init["filename"], init["root"], init["job"], channel.send, BoundedOutput())
        channel.send(end)
    except BaseException:  # noqa: BLE001 - whatever happened, the controller sees the socket close
        pass
    os._exit(0)


def _kill_strays(child: int):
    """Everything but this process and the namespace's init: the run and what it started."""
    me = os.getpid()
    try:
        os.killpg(child, signal.SIGKILL)
    except OSError:
        pass
    if me > 2:  # not in a PID namespace of our own (fallback mode): the process group is all we know
        return
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in (1, me):
            try:
                os.kill(int(name), signal.SIGKILL)
            except OSError:
                pass


def _reap(child: int) -> int:
    _kill_strays(child)
    status = 0
    try:
        _, status = os.waitpid(child, 0)
    except ChildProcessError:
        pass
    # Orphans of the run come back to us (we are their subreaper): wait for all of them.
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            _kill_strays(child)
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
    return status


def _site_builtins():
    """What `site` adds to builtins (exit, quit, help...), without its site-packages (we run with -S)."""
    import site

    site.setquit()
    site.setcopyright()
    site.sethelper()


def main():
    import gc
    import resource  # noqa: F401 - imported once here, not in every run
    from . import fence  # noqa: F401

    # What students commonly import, loaded once here: a run would import it anew each time (pathlib
    # costs a run more than its fork). Not logging: its at-fork handlers slow every fork down.
    import datetime, pathlib, shutil, time  # noqa: E401, F401

    _site_builtins()

    control = socket.socket(fileno=0)
    sys.stdin = None
    _prctl(PR_SET_DUMPABLE, 0)  # same-uid processes (the runs) may not ptrace or read this one
    _prctl(PR_SET_CHILD_SUBREAPER, 1)  # orphans of a run come back here, to be reaped
    channel = LineSocket(control)
    init, code, child = None, None, None
    while True:
        command, fds = channel.recv()
        if command is None:
            break
        if command["cmd"] == "init":
            init = command
            try:
                code = compile_student(init["source"], init["filename"])
                channel.send({"ok": True})
            except CodeError as exc:
                channel.send({"ok": False, "error": str(exc)})
        elif command["cmd"] == "run":
            run_sock = socket.socket(fileno=fds[0])
            gc.freeze()  # fewer copy-on-write pages in each run
            child = os.fork()
            if child == 0:
                _child(run_sock, control, code, init)
            run_sock.close()
            channel.send({"pid": child})
        elif command["cmd"] == "reap":
            status = _reap(child) if child else 0
            child = None
            channel.send({"dead": status})


if __name__ == "__main__":
    main()
