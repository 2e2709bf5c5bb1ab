"""One sandbox per CLI worker: a bubblewrap sandbox that looks like a student's machine, with the
kernel tap (graders.trace.kernel.serve) inside grading many submissions in sequence.

Isolated mode (bwrap): user `aluno` (uid 1000) with a home, /home/aluno/projeto as the work folder
and /tmp as its own tmpfs, a read-only system, no network, its own PIDs, no capabilities. PID 1 is
ours, named /sbin/init, and the server under it is named bash, with PIDs in the thousands
(graders/trace/kernel/pid1.py). Between submissions the server kills every process of the previous
one (it is alone with them and PID 1 in the PID namespace) and empties every writable place.

Reduced mode (no bwrap: containers, CI runners, kernels without user namespaces): the same supervisor
runs as a plain process and performs every write-open, rename, unlink... itself, refusing any mutation
outside the run's folders. Each submission is also fenced by what needs no namespace (reduced.py):
Landlock (reads only of the system and Python, writes only in the run's folders, no TCP, signals and
abstract sockets kept inside) and, when the CLI runs as root, another user for the supervisor and the
submission. `Sandbox.fences()` says which of these held.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading

from ..trace.ops import Trace, from_json
from ..trace.removal import remove_tree
from . import reduced

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../graders
INSIDE_PACKAGE = "/opt/corretor"
HOME = "/home/aluno"
WORK = HOME + "/projeto"
UID = GID = 1000
# The supervisor never runs student code and answers once the run is over: beyond the run's own
# time limit, this much silence means it was stopped.
CONTROL_MARGIN = 5.0
PASSWD = ("root:x:0:0:root:/root:/bin/bash\n"
          f"aluno:x:{UID}:{GID}:Aluno,,,:{HOME}:/bin/bash\n"
          "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
GROUP = f"root:x:0:\naluno:x:{GID}:\nnogroup:x:65534:\n"
HOSTNAME = "notebook"
PREFIX = "correcao-"
# In each sandbox's folder, locked (flock) by the CLI for the sandbox's whole life. The kernel frees
# the lock when the CLI dies, even by SIGKILL: a folder whose lock is free was abandoned.
LOCK = ".em-uso"


def python_executable() -> str:
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


def student_env(home: str, tmp: str | None = None) -> dict:
    env = {"HOME": home, "USER": "aluno", "LOGNAME": "aluno", "LANG": "C.UTF-8", "SHELL": "/bin/bash",
           "PATH": "/usr/local/bin:/usr/bin:/bin", "TERM": "xterm-256color"}
    if tmp and tmp != "/tmp":
        env["TMPDIR"] = tmp
    return env


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


def _serve_args(package_parent: str, pid1: bool = False) -> list[str]:
    # As PID 1, the PIDs are burnt by a child (pid1.start_burning) while the server's modules load.
    first = "from graders.trace.kernel import pid1; pid1.start_burning(); " if pid1 else ""
    return ["-I", "-S", "-B", "-c", f"import sys; sys.path.insert(0, {package_parent!r}); "
            f"{first}from graders.trace.kernel import serve; serve(pid1={pid1})"]


def _empty_site_packages() -> list[str]:
    """An empty, read-only site-packages in place of the machine's: a fresh Python install, as a
    student's might be. The instructor's packages (and their .pth files, which here cost the student's
    interpreter more than its own start) stay out of the sandbox."""
    import sysconfig

    base = os.path.realpath(sys.base_prefix)
    found = set()
    for key in ("purelib", "platlib"):
        path = sysconfig.get_paths(vars={"base": base, "platbase": base}).get(key)
        if path and os.path.isdir(path):
            found.add(os.path.realpath(path))
    for extra in ("/usr/lib/python3/dist-packages", "/usr/local/lib/python3/dist-packages"):
        if os.path.isdir(extra):
            found.add(extra)
    args = []
    for path in sorted(found):
        args += ["--perms", "0755", "--tmpfs", path, "--remount-ro", path]
    return args


def bwrap_command(etc: str) -> list[str]:
    files = []
    for name in ("passwd", "group", "hostname", "hosts"):
        files += ["--ro-bind", os.path.join(etc, name), "/etc/" + name]
    return [
        shutil.which("bwrap") or "bwrap",
        *_system_binds(),
        *_empty_site_packages(),
        "--ro-bind", PACKAGE_DIR, INSIDE_PACKAGE + "/graders",
        *files,
        # The loader's cache, as every machine has it: without it, each library is searched for in
        # ~18 folders, and every one of those opens waits for the supervisor (it sees all opens).
        "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
        # /dev/shm: a tmpfs of this sandbox's own, writable (multiprocessing's semaphores live there),
        # a root of every run (emptied before and after each one); the rest of /dev read-only.
        "--dev", "/dev", "--perms", "01777", "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
        "--proc", "/proc",
        "--perms", "01777", "--tmpfs", "/tmp",
        "--dir", "/home", "--perms", "0755", "--tmpfs", HOME, "--dir", WORK,
        "--remount-ro", "/",
        "--unshare-all", "--unshare-user", "--uid", str(UID), "--gid", str(GID), "--cap-drop", "ALL",
        "--hostname", HOSTNAME,
        "--die-with-parent", "--new-session", "--clearenv", "--setenv", "LANG", "C.UTF-8",
        "--chdir", WORK, "--as-pid-1",
        python_executable(), *_serve_args(INSIDE_PACKAGE, pid1=True),
    ]


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str:
    """Why the sandbox cannot be used here ("" when it can), checked once by really starting one."""
    if not shutil.which("bwrap"):
        return "o bubblewrap (bwrap) não está instalado"
    with tempfile.TemporaryDirectory() as tmp:
        etc = os.path.join(tmp, "etc")
        os.mkdir(etc)
        for name in ("passwd", "group", "hostname", "hosts"):
            open(os.path.join(etc, name), "w").close()
        command = bwrap_command(etc)[:-len(_serve_args(INSIDE_PACKAGE))] + ["-I", "-c", "print('ok')"]
        try:
            run = subprocess.run(command, capture_output=True, timeout=20, stdin=subprocess.DEVNULL, cwd=tmp)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"o bwrap não pôde ser iniciado ({exc})"
        if run.returncode != 0 or run.stdout.strip() != b"ok":
            detail = run.stderr.decode("utf-8", "replace").strip().splitlines()
            return "o bwrap foi recusado pelo sistema" + (f" ({detail[-1][:200]})" if detail else "")
    return ""


def planned_fences(isolated: bool) -> dict:
    """The fences a sandbox in this mode gets on this machine (see Sandbox.fences)."""
    if isolated:
        return {"bubblewrap": True, "landlock": None, "uid_drop": False, "seccomp": True}
    me = reduced.identity(python_executable(), os.path.dirname(PACKAGE_DIR))
    return {"bubblewrap": False, "landlock": reduced.landlock_abi(),
            "uid_drop": me["uid"] is not None, "seccomp": True}


def _broken(detail: str) -> Trace:
    return Trace([], end="broken", output=detail[:2000], final=None)


class Sandbox:
    """`run(source, filename, job, timeout) -> Trace`, many times; `close()` at the end.

    Each run starts with empty folders and no process of the previous one alive. If the server dies
    or stops answering, that run is "broken" and the next one gets a fresh sandbox.
    """

    def __init__(self, isolated: bool, memory_mb: int = 1024):
        self.isolated = isolated
        self.memory_mb = memory_mb
        self.process: subprocess.Popen | None = None
        self.control: socket.socket | None = None
        self.reader = None
        self.base: str | None = None
        self.lock: int | None = None
        self.held: dict | None = None
        self.outer_tmp: str | None = None  # reduced mode's temp folder, outside self.base
        self.uid: int | None = None  # reduced mode started as root: this sandbox's own user
        self.killed: set[int] = set()  # pids of ours to reap in close(), once they are our children
        # One run at a time: the server answers in order on one socket, so two callers sharing the
        # sandbox (graders.grading.default_run from threads) could each read the other's trace.
        self.turn = threading.Lock()

    # lifecycle

    def _start(self):
        _adopt_orphans()
        self.base = tempfile.mkdtemp(prefix=PREFIX, dir=_grading_tmp())
        try:
            self.lock = _claim(self.base)
            limits = {"RLIMIT_AS": self.memory_mb << 20, "RLIMIT_CORE": 0, "RLIMIT_NOFILE": 256,
                      "RLIMIT_FSIZE": 64 << 20}
            if self.isolated:
                etc = os.path.join(self.base, "etc")
                os.mkdir(etc)
                for name, text in (("passwd", PASSWD), ("group", GROUP), ("hostname", HOSTNAME + "\n"),
                                   ("hosts", f"127.0.0.1\tlocalhost\n127.0.1.1\t{HOSTNAME}\n")):
                    with open(os.path.join(etc, name), "w") as f:
                        f.write(text)
                command, env, cwd, user = bwrap_command(etc), {}, self.base, {}
                init = {"cmd": "init", "home": HOME, "work": WORK, "tmp": "/tmp", "shm": "/dev/shm",
                        "env": student_env(HOME), "python": python_executable(), "reduced": False,
                        "kill_all": True, "limits": dict(limits, RLIMIT_NPROC=256)}
            else:
                command, env, cwd, init, user = self._reduced(limits)
            control, theirs = socket.socketpair()
            self.process = subprocess.Popen(command, stdin=theirs, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL, cwd=cwd, env=env,
                                            start_new_session=True, **user)
            theirs.close()
            self.control = control
            self.reader = control.makefile("rb")
            control.settimeout(20)
            reply = json.loads(self._ask(init))
            if not reply.get("ok"):
                raise OSError("o corretor não iniciou")
            self.held = {"bubblewrap": self.isolated, "landlock": reply.get("landlock"),
                         "uid_drop": not self.isolated and reply.get("uid", os.getuid()) != os.getuid(),
                         "seccomp": True}
            # bwrap's PID 1 (ours, with --as-pid-1) may outlive bwrap at the end: known now, reaped by close().
            self.killed |= set(process_tree(self.process.pid))
            if self.held != planned_fences(self.isolated):
                # The report promises the planned fences: a sandbox with fewer grades nothing.
                raise OSError(f"as cercas não se aplicaram ({self.held})")
        except BaseException:
            self.close()
            raise

    def _reduced(self, limits: dict):
        """(command, env, cwd, init message, Popen user arguments) of a reduced-mode server."""
        me = reduced.identity(python_executable(), os.path.dirname(PACKAGE_DIR))
        home = os.path.join(self.base, "aluno")
        work = os.path.join(home, "projeto")
        os.makedirs(work)
        tmp = self._separate_tmp()
        shm = os.path.join(self.base, "shm")  # the run's /dev/shm (target.resolve maps the name)
        os.mkdir(shm, 0o700)
        package_parent = os.path.dirname(PACKAGE_DIR)
        user = {}
        uid = reduced.claim_uid() if me["uid"] is not None else None
        if uid is not None:
            self.uid = uid
            # The folder itself stays the CLI's (its lock file too); only the run's folders are theirs.
            os.chmod(self.base, 0o711)
            for path in (home, work, tmp, shm):
                os.chown(path, uid, uid)
            if me["copy_package"]:  # the checkout sits where that user cannot read
                package_parent = os.path.join(self.base, "corretor")
                shutil.copytree(PACKAGE_DIR, os.path.join(package_parent, "graders"),
                                ignore=shutil.ignore_patterns("__pycache__"))
                os.chmod(package_parent, 0o755)
            user = {"user": uid, "group": uid, "extra_groups": []}
            limits["RLIMIT_NPROC"] = 256  # a user of its own: its processes are this sandbox's
        elif os.getuid() != 0:
            limits["RLIMIT_NPROC"] = _count_processes() + 128
        command = [me["python"], *_serve_args(package_parent)]
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        fresh = reduced.fresh_python(os.path.join(self.base, "python"), me["python"])
        rules = reduced.landlock_rules(me["python"], me["prefix"], me["site"], [home, tmp, shm])
        rules["read"].append(os.path.dirname(os.path.dirname(fresh)))
        init = {"cmd": "init", "home": home, "work": work, "tmp": tmp, "shm": shm,
                "env": student_env(home, tmp), "python": fresh, "reduced": True,
                "kill_all": False, "limits": limits, "landlock": rules}
        return command, env, work, init, user

    def _separate_tmp(self) -> str:
        """The run's temp folder, on another file system than its home when the machine has one (the
        system temp folder, off /dev/shm): as under bubblewrap, where /tmp is a tmpfs of its own, the
        two then differ in device number and statvfs, and a rename between them fails with EXDEV
        (where they cannot differ, the supervisor answers EXDEV itself: kernel/filesystems.py)."""
        system = tempfile.gettempdir()
        try:
            if os.stat(system).st_dev != os.stat(self.base).st_dev:
                outer = os.path.join(system, os.path.basename(self.base))
                os.mkdir(outer, 0o711)  # named as the locked folder: swept with it (sweep_abandoned)
                self.outer_tmp = outer
                os.mkdir(os.path.join(outer, "tmp"))
                return os.path.join(outer, "tmp")
        except OSError:
            pass
        os.mkdir(os.path.join(self.base, "tmp"))
        return os.path.join(self.base, "tmp")

    def fences(self) -> dict:
        """Which fences hold around a submission: {"bubblewrap": bool, "landlock": ABI or None,
        "uid_drop": bool (the submission runs as another user than the CLI's: reduced mode started as
        root), "seccomp": bool}. What the running server confirmed, else what this machine gives."""
        if self.held is not None:
            return dict(self.held)
        return planned_fences(self.isolated)

    def _ask(self, message: dict) -> str:
        self.control.sendall((json.dumps(message) + "\n").encode("utf-8"))
        line = self.reader.readline()
        if not line.endswith(b"\n"):
            raise OSError("o corretor parou de responder")
        return line.decode("utf-8")

    def run(self, source: str, filename: str, job: dict, timeout: float = 10.0, caps: dict | None = None) -> Trace:
        """`caps`: the grader's limits for this run, {"events", "data", "output"} (see the kernel server)."""
        with self.turn:
            return self._run(source, filename, job, timeout, caps)

    def _run(self, source: str, filename: str, job: dict, timeout: float, caps: dict | None) -> Trace:
        if self.process is None:
            try:
                self._start()  # cleans up after itself when it fails
            except Exception as exc:  # noqa: BLE001 - any failure to start is this run's "broken"
                return _broken(f"a caixa de areia não iniciou: {exc}")
        try:
            self.control.settimeout(timeout + CONTROL_MARGIN)
            command = {"cmd": "run", "source": source, "filename": filename, "job": job, "timeout": timeout}
            if caps:
                command["caps"] = caps
            return from_json(self._ask(command))
        except Exception as exc:  # noqa: BLE001 - whatever happened, no half-used sandbox is kept
            self.close()  # restarted for the next submission
            return _broken(f"o processo de correção parou de responder ({type(exc).__name__})")

    def kill(self):
        """Stop the run in progress now, from another thread (Ctrl+C): the server and every process
        under it are killed; the worker's pending `run` then returns "broken" and cleans up."""
        process = self.process
        if process is None:
            return
        self.killed |= set(kill_tree(process.pid))

    def close(self):
        if self.process is not None:
            # Taken before the control socket closes: the server then ends on its own, and bwrap may
            # exit before its PID 1 does, which is handed to us (`_adopt_orphans`) to reap.
            self.killed |= set(process_tree(self.process.pid))
        if self.control is not None:
            try:
                self.reader.close()
                self.control.close()
            except OSError:
                pass
        if self.process is not None:
            if self.process.poll() is None:
                self.killed |= set(kill_tree(self.process.pid))  # reduced mode: the student's session too
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            reap(self.killed - {self.process.pid})
            self.killed = set()
        if self.outer_tmp is not None:
            remove_tree(self.outer_tmp)
        if self.base is not None:
            remove_tree(self.base)
        if self.lock is not None:
            os.close(self.lock)
        if self.uid is not None:
            reduced.release_uid(self.uid)  # its processes are all dead (kill_tree above)
        self.process = self.control = self.reader = self.base = self.lock = self.outer_tmp = self.uid = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _claim(base: str) -> int:
    """Locks the folder as in use. The lock file is locked before it takes its name, so a sweeping
    CLI never finds it free while we live."""
    fresh = os.path.join(base, LOCK + ".novo")
    fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.rename(fresh, os.path.join(base, LOCK))
    except BaseException:
        os.close(fd)
        raise
    return fd


def sweep_abandoned(directory: str | None = None) -> list[str]:
    """Removes the sandbox folders a dead CLI left behind (killed by SIGKILL, by the OOM killer...):
    in /dev/shm they hold memory until the next reboot. Only our own folders, and only those whose
    lock is free; a folder without a lock is still being made, or not ours to judge. Returns them."""
    default = directory is None
    directory = directory or _grading_tmp() or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        if not name.startswith(PREFIX):
            continue
        path = os.path.join(directory, name)
        try:
            st = os.lstat(path)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
                continue
            fd = os.open(os.path.join(path, LOCK), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)  # in use by a live CLI
            continue
        try:
            _sweep_outer_tmp(directory, name)  # first: were we stopped here, the locked folder tells
            remove_tree(path)
        finally:
            os.close(fd)
        removed.append(path)
    # Orphans are judged against the folder where this machine's sandboxes live, never another.
    return removed + (_sweep_orphan_tmps(directory) if default else [])


def _outer_tmp(directory: str, name: str) -> str | None:
    """Where a sandbox of `directory` named `name` keeps its reduced-mode temp folder, if elsewhere."""
    system = tempfile.gettempdir()
    if os.path.realpath(system) == os.path.realpath(directory):
        return None
    return os.path.join(system, name)


def _sweep_outer_tmp(directory: str, name: str):
    """The temp folder of an abandoned reduced-mode sandbox, if it had one outside `directory`."""
    outer = _outer_tmp(directory, name)
    try:
        st = os.lstat(outer) if outer else None
    except OSError:
        return
    if st is not None and stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid():
        remove_tree(outer)


def _sweep_orphan_tmps(directory: str) -> list[str]:
    """Temp folders whose sandbox folder is gone (removed by a CLI of an older version, which knew
    nothing of them): a sandbox folder is made before its temp folder and removed after it."""
    if _outer_tmp(directory, PREFIX) is None:
        return []
    system, removed = tempfile.gettempdir(), []
    try:
        names = os.listdir(system)
    except OSError:
        return removed
    for name in names:
        if not name.startswith(PREFIX) or os.path.lexists(os.path.join(directory, name)):
            continue
        outer = os.path.join(system, name)
        try:
            st = os.lstat(outer)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid():
            remove_tree(outer)
            removed.append(outer)
    return removed


def _grading_tmp() -> str | None:
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


def _count_processes() -> int:
    uid = os.getuid()
    count = 0
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and os.stat(f"/proc/{name}").st_uid == uid:
                count += 1
        except OSError:
            pass
    return count


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read().decode("utf-8", "replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(name))
    return children


def process_tree(pid: int) -> list[int]:
    """`pid` and every descendant, as /proc shows them now."""
    try:
        children = _children_map()
    except OSError:
        children = {}
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, ()))
    return found


def kill_tree(pid: int) -> list[int]:
    """SIGKILL `pid`, its process group and every descendant (which may sit in sessions of their
    own: the student's process calls setsid), collected before anything dies so none is orphaned;
    returns the pids it found."""
    found = process_tree(pid)
    for target in found:
        for kill in (lambda: os.killpg(target, 9), lambda: os.kill(target, 9)):
            try:
                kill()
            except OSError:
                pass
    return found


@functools.cache
def _adopt_orphans():
    """Make this process the subreaper of what it starts: a sandbox's PID 1, orphaned when bwrap dies
    first, or a reduced-mode server's helpers, become ours to reap (`reap`) instead of zombies of a
    PID 1 that may never reap them (a container's or a VM's own init)."""
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def reap(pids, wait: float = 2.0):
    """Reap the killed `pids` once they are our children. One whose parent is still among them may
    be handed to us when that parent dies, so it is waited for (up to `wait` seconds); one that is
    gone, or whose parent is someone else (an init inside the sandbox), is not ours to reap."""
    import time

    left, me, end = set(pids), os.getpid(), time.monotonic() + wait
    while left:
        for pid in list(left):
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    left.discard(pid)
                continue
            except ChildProcessError:
                pass
            try:
                with open(f"/proc/{pid}/stat", "rb") as f:
                    ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                ppid = None
            if ppid is None or (ppid != me and ppid not in left):
                left.discard(pid)
        if not left or time.monotonic() > end:
            return
        time.sleep(0.005)
