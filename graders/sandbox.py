"""CLI runner: every run of a submission is a fresh process forked inside a bubblewrap sandbox.

The sandbox (bwrap) sees a read-only system, one private writable folder, no network, its
own PIDs and an empty environment. Without bwrap (macOS, kernels without user namespaces)
the runs are plain processes fenced by an audit hook: reduced isolation, said plainly.
The controller and the judge stay in this process; they read the folder after each death.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from .controller import RunController, RunLog
from .disk import read_tree
from .executor import SYSTEM_TMP, WORKDIR
from .forkserver import LineSocket
from .guard import CodeError

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
INSIDE_ROOT = "/correcao"
INSIDE_PACKAGE = "/opt/corretor"
MAX_LINE = 20 << 20
RUN_TIMEOUT = 10.0
# The fork server never runs student code and answers at once; silence means the run stopped it.
CONTROL_TIMEOUT = 5.0


class SandboxBroken(Exception):
    """The sandbox stopped answering (its code killed the fork server, or time ran out)."""


def python_executable() -> str:
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


def _system_binds() -> list[str]:
    args = []
    for name in ("usr", "bin", "lib", "lib32", "lib64", "libx32", "sbin"):
        path = "/" + name
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    prefix = os.path.realpath(sys.base_prefix)
    if not prefix.startswith("/usr/") and prefix != "/usr":
        args += ["--ro-bind", prefix, prefix]
    return args


def bwrap_command(host_root: str) -> list[str]:
    return [
        shutil.which("bwrap") or "bwrap",
        *_system_binds(),
        "--ro-bind", PACKAGE_DIR, INSIDE_PACKAGE + "/graders",
        "--dev", "/dev", "--tmpfs", "/dev/shm", "--remount-ro", "/dev/shm",
        "--proc", "/proc",
        "--bind", host_root, INSIDE_ROOT,
        "--symlink", f"{INSIDE_ROOT}/{SYSTEM_TMP}", "/tmp",
        "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534", "--cap-drop", "ALL",
        "--die-with-parent", "--new-session", "--clearenv",
        "--setenv", "LC_ALL", "C.UTF-8", "--setenv", "PYTHONUTF8", "1",
        "--chdir", INSIDE_ROOT,
        python_executable(), *_python_args(INSIDE_PACKAGE),
    ]


def _python_args(package_parent: str) -> list[str]:
    # -S: the site-packages' .pth files can cost more than the interpreter's own start, and the
    # runs need none of them; the fork server adds site's builtins (exit, quit, help) itself.
    return ["-I", "-S", "-B", "-c", f"import sys; sys.path.insert(0, {package_parent!r}); "
            "from graders.forkserver import main; main()"]


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str:
    """Why the sandbox cannot be used here ("" when it can), checked once by really starting one."""
    if not shutil.which("bwrap"):
        return "o bubblewrap (bwrap) não está instalado"
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, SYSTEM_TMP))
        command = bwrap_command(tmp)[:-len(_python_args(INSIDE_PACKAGE))] + ["-I", "-c", "print('ok')"]
        try:
            run = subprocess.run(command, capture_output=True, timeout=20, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"o bwrap não pôde ser iniciado ({exc})"
        if run.returncode != 0 or run.stdout.strip() != b"ok":
            detail = run.stderr.decode("utf-8", "replace").strip().splitlines()
            return "o bwrap foi recusado pelo sistema" + (f" ({detail[-1][:200]})" if detail else "")
    return ""


def grading_tmp() -> str | None:
    """tmpfs where there is one: grading is dominated by real file-system calls."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


def _count_processes() -> int:
    try:
        uid = os.getuid()
        return sum(1 for p in os.listdir("/proc") if p.isdigit() and os.stat(f"/proc/{p}").st_uid == uid)
    except OSError:
        return 0


class SandboxRunner:
    """One submission's runs; `run(plan)` returns what the controller saw and the folder after death."""

    def __init__(self, source: str, filename: str, job: dict, *, isolated: bool, memory_mb: int, deadline: float):
        self.isolated = isolated
        self.deadline = deadline
        self.output = ""
        self.base = tempfile.mkdtemp(prefix="correcao-", dir=grading_tmp())
        self.host_root = os.path.join(self.base, "raiz")
        os.mkdir(self.host_root)
        self._wipe()
        control, theirs = socket.socketpair()
        inside_root = INSIDE_ROOT if isolated else self.host_root
        if isolated:
            command = bwrap_command(self.host_root)
            env, cwd = {}, self.base
        else:
            command = [python_executable(), *_python_args(os.path.dirname(PACKAGE_DIR))]
            env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "PYTHONUTF8": "1", "TMPDIR": os.path.join(self.host_root, SYSTEM_TMP)}
            cwd = self.host_root
        self.process = subprocess.Popen(
            command, stdin=theirs, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            cwd=cwd, env=env, start_new_session=True, pass_fds=(),
        )
        theirs.close()
        control.settimeout(max(1.0, deadline - time.monotonic()))
        self.control = LineSocket(control)
        limits = {
            "RLIMIT_AS": memory_mb * 1024 * 1024, "RLIMIT_FSIZE": 32 * 1024 * 1024, "RLIMIT_CORE": 0,
            "RLIMIT_CPU": int(RUN_TIMEOUT) + 2, "RLIMIT_NOFILE": 256,
        }
        if isolated:
            limits["RLIMIT_NPROC"] = _count_processes() + 64
        reply = self._ask({"cmd": "init", "source": source, "filename": filename, "job": job,
                           "root": inside_root, "limits": limits, "fence": not isolated})
        if not reply.get("ok"):
            self.close()
            raise CodeError(str(reply.get("error", "o código não compila")))

    def _ask(self, message: dict, fds=()) -> dict:
        try:
            self.control.sock.settimeout(min(CONTROL_TIMEOUT, max(0.5, self.deadline - time.monotonic() + 2)))
            self.control.send(message, fds)
            reply, _ = self.control.recv()
        except (OSError, ValueError) as exc:
            raise SandboxBroken(str(exc)) from None
        if not isinstance(reply, dict):
            raise SandboxBroken("o processo de correção parou de responder")
        return reply

    def _wipe(self):
        for name in (WORKDIR, SYSTEM_TMP):
            path = os.path.join(self.host_root, name)
            if os.path.lexists(path):
                _force_rmtree(path)
            os.mkdir(path)

    def run(self, plan) -> RunLog:
        if time.monotonic() > self.deadline:
            return RunLog(plan, stopped="timeout")  # the submission's time is up: no more runs
        self._wipe()
        controller = RunController(plan, read_disk=lambda: read_tree(self.host_root))
        ours, theirs = socket.socketpair()
        try:
            self._ask({"cmd": "run"}, fds=[theirs.fileno()])
            theirs.close()
            self._converse(ours, controller, plan)
            self._ask({"cmd": "reap"})
        finally:
            ours.close()
            theirs.close()
        log = controller.log
        log.disk = read_tree(self.host_root)
        if plan is None and isinstance(log.end, dict) and isinstance(log.end.get("output"), str):
            self.output = log.end["output"][:20_000]
        return log

    def _converse(self, sock: socket.socket, controller: RunController, plan):
        log = controller.log
        reader = sock.makefile("rb")
        started = time.monotonic()
        while True:
            left = min(RUN_TIMEOUT - (time.monotonic() - started), self.deadline - time.monotonic())
            if left <= 0:
                log.stopped = log.stopped or "timeout"
                return
            sock.settimeout(left)
            try:
                line = reader.readline(MAX_LINE + 1)
            except (TimeoutError, socket.timeout):
                log.stopped = log.stopped or "timeout"
                return
            except OSError:
                line = b""
            if not line:
                log.stopped = log.stopped or "lost"
                return
            try:
                if len(line) > MAX_LINE or not line.endswith(b"\n"):
                    raise ValueError
                message = json.loads(line)
            except (ValueError, RecursionError):
                log.stopped = "protocol"
                return
            answer = controller.handle(message)
            if answer.get("a") == "die" or (isinstance(message, dict) and message.get("t") == "end"):
                return
            try:
                sock.sendall((json.dumps(answer, ensure_ascii=False) + "\n").encode("utf-8"))
            except OSError:
                log.stopped = log.stopped or "lost"
                return

    def close(self):
        try:
            self.control.sock.close()
        except OSError:
            pass
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, 9)
            except OSError:
                self.process.kill()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        _force_rmtree(self.base)


def _force_rmtree(path: str):
    def retry(function, target, _exc):
        # A run may leave folders without permissions; we own them, so open them back up.
        try:
            os.chmod(os.path.dirname(target), 0o700)
            os.chmod(target, 0o700)
            function(target)
        except OSError:
            pass

    shutil.rmtree(path, onerror=retry)
