"""Running one submission: starting the run's process under the filter (forked and exec'd, or forked
from the warm interpreter), the supervisor's loop over notifications, output and channel,
and reaping everything at the end."""

from __future__ import annotations

import errno
import fcntl
import marshal
import os
import select
import signal
import socket
import time

from .. import inside
from ..ops import Trace
from .channel import OUTPUT_KEEP
from . import landlock
from .errors import Stop
from .lookthread import LookThread, fork
from .linux import PR_SET_CHILD_SUBREAPER, PR_SET_DUMPABLE, libc
from .seccomp import (NOTIF, NOTIF_RECV, NOTIF_SET_FLAGS, SYNC_WAKE_UP, NR_SECCOMP, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                      SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, SECCOMP_SET_MODE_FILTER, filter_program)
from .supervisor import Supervisor

_TRACE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER_SOURCE = open(os.path.join(_TRACE_DIR, "runner.py"), encoding="utf-8").read()
INSIDE_SOURCE = open(os.path.join(_TRACE_DIR, "inside.py"), encoding="utf-8").read()
# The runner and inside.py compiled once per supervisor, not by every run's interpreter (compiling
# the runner's source cost each run ~2 ms of CPU, a tenth of a bare interpreter start). The student's
# interpreter is the supervisor's own binary (bubblewrap) or a link to it (reduced mode), so the
# marshal format is the same. Still `python -c <program>`, with "<string>" as the runner's file name.
RUNNER_CODE = marshal.dumps(compile(RUNNER_SOURCE, "<string>", "exec", dont_inherit=True))
INSIDE_CODE = marshal.dumps(compile(INSIDE_SOURCE, "<string>", "exec", dont_inherit=True))
# The filter and its listener (inside.seal): a cold run's process seals itself before its exec, so
# its interpreter starts under the filter; the warm interpreter (zygote.py) gets the
# runner, inside.py and the filter once, and each run's process, forked from it, seals itself right
# after the fork, before it asks for the student's code (inside.serve_forks). The supervisor sends
# the code (and the filter) on fd 3 as the interpreter starts.
BOOTSTRAP = """import marshal, os, sys
data = b''
while len(data) < {total}:
    chunk = os.read(3, {total} - len(data))
    if not chunk:
        os._exit(3)
    data += chunk
del chunk
__name__ = '__corretor__'
exec(marshal.loads(data[:{runner}]))
if {warm}:
    _first = sys.path[:1] == ['']
    if _first:
        del sys.path[0]
    exec(marshal.loads(data[{runner}:{inside}]))
    if _first:
        sys.path.insert(0, '')
    del _first
    serve_forks({settings!r})
    seal({settings!r}, data[{inside}:])
del data
__name__ = '__main__'
main()
"""


def seal_settings(reduced: bool) -> dict:
    """What inside.seal needs to load the filter (numbers the supervisor's libseccomp resolved)."""
    return {"nr_seccomp": NR_SECCOMP, "set_mode_filter": SECCOMP_SET_MODE_FILTER,
            "flags": SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
            "fallback_flags": SECCOMP_FILTER_FLAG_NEW_LISTENER}


def confine_settings(work: str, limits: dict | None, landlock_fd: int | None) -> dict:
    """What inside.confine needs: the run's folder, limits and Landlock ruleset."""
    return {"work": work, "limits": dict(limits or {}), "landlock_fd": landlock_fd,
            "nr_landlock_restrict_self": landlock.NR_RESTRICT_SELF}


_COLD: dict = {}


def bootstrap(reduced: bool, warm: dict | None = None) -> tuple[str, bytes]:
    """(the `-c` program of a run's interpreter, what the supervisor sends it on fd 3). `warm`: the
    confine settings of a warm interpreter, which forks each run's process (zygote.py)."""
    if warm is None:
        if reduced not in _COLD:
            _COLD[reduced] = _bootstrap(reduced, None)
        return _COLD[reduced]
    return _bootstrap(reduced, warm)


def _bootstrap(reduced: bool, warm: dict | None) -> tuple[str, bytes]:
    data = RUNNER_CODE + (INSIDE_CODE + filter_program(reduced) if warm is not None else b"")
    settings = dict(seal_settings(reduced), **(warm or {}))
    runner_end = len(RUNNER_CODE)
    inside_end = runner_end + len(INSIDE_CODE)
    text = BOOTSTRAP.format(total=len(data), runner=runner_end, inside=inside_end, warm=warm is not None,
                            settings=settings)
    return text, data


def prepare_supervisor():
    """Once per supervisor process: nobody may read or trace it; orphans of a run come back to it;
    modes are applied by hand (the target's umask), never through our own."""
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    os.umask(0)
    filter_program(True)
    filter_program(False)


def _child(python, env, work, limits, out_w, chan, reduced, landlock_fd=None):
    """In the forked child: confine, install the filter, hand the listener over, exec the runner."""
    try:
        text, _data = bootstrap(reduced)
        inside.confine(confine_settings(work, limits, landlock_fd), out_w, chan)
        inside.seal(seal_settings(reduced), filter_program(reduced))
        os.execve(python, [python, "-c", text], env)  # argv[0] locates the stdlib
    except BaseException:  # noqa: BLE001
        pass
    os._exit(127)


def _high_fd(fd: int) -> int:
    """A copy of fd numbered above 3, so the child's dup2 onto 0-3 never clobbers a source."""
    if fd > 3:
        return fd
    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return new


def run_traced(source: str, filename: str, job: dict, *, work: str, tmp: str, home: str | None = None,
               shm: str | None = None,
               env: dict, limits: dict | None = None, timeout: float = 10.0, python: str = "/usr/bin/python3",
               reduced: bool = False, kill_all: bool = False, caps: dict | None = None,
               control: int | None = None, landlock_fd: int | None = None,
               looker: LookThread | None = None, zygote=None) -> Trace:
    """One run of `job` under the tap. `work`, `tmp` (and `home`) are the roots; reduced=True refuses
    every mutation outside them (no sandbox around us); kill_all=True when we are alone in a PID
    namespace with the run (bwrap): at the end everything but us and init is killed. `control`: the
    socket of whoever asked for the run; it is silent until the answer, so any sign on it means the
    asker is gone, and the run is killed at once rather than left to its time limit. `landlock_fd`:
    a ruleset (landlock.ruleset) the child restricts itself with before exec. `looker`: reduced mode's
    fenced look thread (lookthread.py), kept by a server across runs; made for this run when None. In
    reduced mode the child is forked from it, so the child's Landlock domain nests in the thread's.
    `zygote`: the warm interpreter (zygote.py), made by the server with these same work folder,
    limits and ruleset; the run's process is forked from it, or started cold if it fails. With
    kill_all it lives in the run's PID namespace: the run may not reach it, and its end spares it."""
    roots = [("work", work), ("tmp", tmp)] + ([("home", home)] if home else []) + ([("shm", shm)] if shm else [])
    sup = Supervisor(roots, reduced=reduced, source=source, filename=filename, job=job, caps=caps)
    if zygote is not None and not zygote.alive:
        zygote = None
    own_looker = None
    if reduced:
        if looker is None:
            looker = own_looker = LookThread(landlock_fd)
        sup.looker = looker
    root_list = sup.roots_out()
    trace = Trace(root_list)
    out_r, out_w, ours, theirs_fd = _pipes(sup)
    pid = None
    if zygote is not None:
        try:
            pid = zygote.fork(out_w, theirs_fd)  # already loaded: nothing to send
            # The warm interpreter that will fork the next run: never a target of this run's
            # signals, limits or priorities, nor a process of the run (mappings, the end's sweep).
            sup.warm = zygote
        except OSError:
            # It may have forked a run's process before it fell silent: that one keeps the pipes it
            # was given, whose other ends close here (it ends at its first word), and the cold
            # start gets new ones, never a channel shared with a stray.
            for fd in (out_r, out_w, theirs_fd):
                os.close(fd)
            ours.close()
            out_r, out_w, ours, theirs_fd = _pipes(sup)
            pid = zygote = None
    # From the run's start: a warm interpreter that did not answer (zygote.ANSWER_TIMEOUT) costs the
    # run none of its time, and the run is started cold.
    deadline = time.monotonic() + timeout
    if pid is None:
        pid = (looker.fork if reduced else fork)(
            lambda: _child(python, env, work, limits, out_w, theirs_fd, reduced, landlock_fd))
        try:
            ours.sendall(bootstrap(reduced)[1])  # read once the interpreter is up (socket buffer: ~200 KB)
        except OSError:
            pass  # the child is already gone: the run ends "broken" below
    sup.child_pgid = pid
    os.close(out_w)
    os.close(theirs_fd)
    status = None
    end, limits_hit = None, {}
    try:
        ours.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            _msg, fds, _f, _a = socket.recv_fds(ours, 16, 1)
        except OSError:
            fds = []
        if not fds:
            end = "broken"
        else:
            sup.listener = fds[0]
            _sync_wake_up(sup.listener)
            ours.setblocking(False)
            end, status = _loop(sup, pid, ours, out_r, deadline, _members(pid, kill_all), control,
                                zygote if kill_all else None)
    except Stop as stop:
        end, limits_hit = stop.end, stop.limits
    except Exception:  # noqa: BLE001 - the tap failed: not the student's fault
        import traceback

        traceback.print_exc()
        end = "broken"
    finally:
        status = _kill_and_reap(pid, status, kill_all, zygote if kill_all else None)
        sup.close_mappings()
        for fd in [sup.listener, out_r] + list(sup.pidfds.values()) + [p[1] for p in sup.pending]:
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        ours.close()
        if own_looker is not None:
            own_looker.close()
    if end == "exit" and status is not None and os.WIFSIGNALED(status):
        end, trace.code = "signal", os.WTERMSIG(status)
    elif end == "exit" and status is not None:
        trace.code = os.WEXITSTATUS(status)
    trace.end = end
    trace.limits = limits_hit
    if sup.outlived:
        # Alive at the time limit after the runner had ended, and killed: the verdict says so.
        trace.limits = dict(limits_hit, outlived=timeout)
    trace.events = sup.events
    trace.report = sup.report
    trace.probes = sup.probes_out()
    text = bytes(sup.output).decode("utf-8", "replace")
    if len(text) > OUTPUT_KEEP or sup.output_attempted > len(sup.output):
        text = text[:OUTPUT_KEEP] + "\n… [saída cortada]"
    trace.output = text
    try:
        trace.final = sup.final()
    except OSError:
        trace.final = None
    for _role, _path, fd, _dev in sup.roots:
        os.close(fd)
    return trace


def _pipes(sup: Supervisor) -> tuple[int, int, socket.socket, int]:
    """(output's read end, its write end, our end of the channel, theirs) for a run's process, whose
    ends are numbered above 3 and known to the supervisor (it tells them from the run's own files)."""
    out_r, out_w = os.pipe()
    ours, theirs = socket.socketpair()
    out_w = _high_fd(out_w)
    theirs_fd = _high_fd(theirs.detach())
    sup.pipe_key = (os.fstat(out_w).st_dev, os.fstat(out_w).st_ino)
    st = os.fstat(theirs_fd)
    sup.chan_key = (st.st_dev, st.st_ino)
    return out_r, out_w, ours, theirs_fd


def _sync_wake_up(listener: int):
    """Linux 6.6+: the target waiting for our answer is woken on our CPU at once, and we on its when it
    notifies (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP): every call the supervisor handles is a round trip,
    and the run makes hundreds. Older kernels refuse the request; nothing else changes."""
    try:
        fcntl.ioctl(listener, NOTIF_SET_FLAGS, SYNC_WAKE_UP)  # the flags themselves, not a pointer
    except OSError:
        pass


def _loop(sup: Supervisor, pid: int, chan: socket.socket, out_r: int, deadline: float, members: int,
          control: int | None = None, zygote=None):
    poller = select.poll()
    if control is not None:
        poller.register(control, select.POLLIN)
    poller.register(sup.listener, select.POLLIN)
    poller.register(chan.fileno(), select.POLLIN)
    poller.register(out_r, select.POLLIN)
    pidfd = os.pidfd_open(pid)
    poller.register(pidfd, select.POLLIN)
    buffer = bytearray(NOTIF.size)
    zero = bytes(NOTIF.size)
    handled = 0  # notifications since orphans were last looked for
    # The run ends when its last process ends, not its first: once the runner has exited, what it
    # left (children, double-forked daemons, all re-parented to us, the subreaper) is still traced
    # until it exits too, within the same time limit.
    main_done, main_status = False, None
    chan_fd = chan.fileno()
    chan_open = True
    out_registered = False
    pending_fds: set = set()
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                if main_done:
                    sup.outlived = True  # killed by _kill_and_reap; the runner itself had ended
                    return "exit", main_status
                return "timeout", None
            busy = False
            # After the runner's exit nothing signals the last orphan's: look for it often.
            for event_fd, mask in poller.poll(min(left, 0.005 if main_done else 1.0) * 1000):
                if event_fd == sup.listener:
                    if mask & select.POLLIN:
                        buffer[:] = zero
                        try:
                            fcntl.ioctl(sup.listener, NOTIF_RECV, buffer, True)
                        except OSError as exc:
                            if exc.errno in (errno.ENOENT, errno.EINTR):
                                continue
                            raise
                        sup.handle(bytes(buffer))
                        handled += 1
                        busy = True
                    elif mask & (select.POLLHUP | select.POLLERR):
                        # No task uses the filter any more (the run is exiting): nothing else can
                        # come, and polled on, it would wake this loop until the pidfd shows the exit.
                        poller.unregister(sup.listener)
                elif event_fd == chan_fd:
                    if mask & select.POLLOUT and sup.outbox:
                        try:
                            sent = os.write(chan_fd, sup.outbox)
                            sup.outbox = sup.outbox[sent:]
                        except BlockingIOError:
                            pass
                        except OSError:
                            sup.outbox = b""
                    data = None
                    if mask & select.POLLIN:
                        try:
                            data = os.read(chan_fd, 65536)
                        except BlockingIOError:
                            data = None
                        if data:
                            raise Stop("protocol")  # requests come only through write(), which we emulate
                    if mask & (select.POLLHUP | select.POLLERR) and not data and chan_open:
                        # The run's end closed it (the process is exiting): polled on, it would wake
                        # this loop thousands of times before the exit shows on the pidfd.
                        poller.unregister(chan_fd)
                        chan_open, sup.outbox = False, b""
                elif event_fd == out_r:
                    data = os.read(out_r, 65536)
                    if data:
                        sup._output(data)
                    else:
                        poller.unregister(out_r)
                elif event_fd == pidfd:
                    try:
                        _, status = os.waitpid(pid, 0)
                    except ChildProcessError:
                        status = None
                    main_done, main_status = True, status
                    poller.unregister(pidfd)
                    handled = 64  # look for what is left at once
                elif event_fd == control:
                    raise Stop("broken")  # the CLI died (SIGKILL...): nobody will read this run
                elif event_fd in pending_fds:
                    pass
            # Replies to send, and writes deferred until their pipe had room.
            if sup.outbox and chan_open:
                try:
                    sent = os.write(chan_fd, sup.outbox)
                    sup.outbox = sup.outbox[sent:]
                except BlockingIOError:
                    pass
                except OSError:
                    sup.outbox = b""
            if sup.outbox and not out_registered and chan_open:
                poller.modify(chan_fd, select.POLLIN | select.POLLOUT)
                out_registered = True
            elif not sup.outbox and out_registered and chan_open:
                poller.modify(chan_fd, select.POLLIN)
                out_registered = False
            if sup.pending:
                _retry_pending(sup, poller, pending_fds)
            # Orphans are looked for when the run is not in the middle of a stream of calls (each
            # call waits for us), and every 64 calls so that exited ones never pile up as zombies.
            if not busy or handled >= 64:
                handled = 0
                status, gone = _reap_orphans(pid, members, zygote, main_done)
                if status is not None and not main_done:
                    main_done, main_status = True, status
                    poller.unregister(pidfd)
                if main_done and gone:
                    return "exit", main_status
    finally:
        os.close(pidfd)


def _retry_pending(sup, poller, pending_fds):
    still = []
    for nid, dup, data in sup.pending:
        _r, writable, _x = select.select([], [dup], [], 0)
        if writable:
            try:
                sup.respond(nid, value=os.write(dup, data))
            except OSError as exc:
                sup.respond(nid, error=exc.errno or errno.EIO)
            os.close(dup)
            if dup in pending_fds:
                poller.unregister(dup)
                pending_fds.discard(dup)
        else:
            if dup not in pending_fds:
                poller.register(dup, select.POLLOUT)
                pending_fds.add(dup)
            still.append((nid, dup, data))
    sup.pending = still


def _members(pid: int, kill_all: bool) -> int:
    """The waitpid() selector for one run's processes. With kill_all we are alone with the run (and the
    warm interpreter, told apart by _children) in its PID namespace, so every other child of ours is
    the run's; otherwise its process group (reduced mode
    never runs setsid or setpgid, so nothing leaves it). Never -1 then: the caller's own children are
    not ours to reap, and a live one would hold up every run's final wait."""
    return -1 if kill_all else -pid


def _reap_orphans(root_pid, members, zygote=None, ask=True):
    """Reap what came back to us: (the root's status if it was among them, whether no process of the
    run is left). Every process of the run is our child or below one: orphans come back to us.
    `zygote`: a warm interpreter among our children (bubblewrap's members=-1) that is not the run's;
    with it, whether the run is over is read from our children list, and only when `ask`ed (once the
    runner has ended: before, the answer is not used)."""
    root = None
    while True:
        try:
            pid, status = os.waitpid(members, os.WNOHANG)
        except ChildProcessError:
            return root, True
        if pid == 0:
            return root, ask and zygote is not None and not _children(zygote)
        if pid == root_pid:
            root = status
        elif zygote is not None:
            zygote.reaped(pid)


def _children(zygote) -> set:
    """Our children but the warm interpreter, live or not yet reaped: the kernel's own list, which
    waitpid(-1) reads too. Each process of the run has an ancestor among them: the run's process and
    the orphans are our children (we are their subreaper), and the warm interpreter, which forks on
    our request only, has none once a run's fork is answered (zygote.Zygote.fork)."""
    found = set()
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children", "rb") as f:
                found.update(int(p) for p in f.read().split())
        except FileNotFoundError:
            continue  # a thread that ended as we listed them
    found.discard(zygote.pid)
    return found


def children_listed() -> bool:
    """Whether this kernel lists a task's children (CONFIG_PROC_CHILDREN): without that list a warm
    interpreter under bubblewrap would hide the end of a run, and each run starts cold there."""
    return os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def _sweep(spared: frozenset) -> None:
    """SIGKILL to every process of our PID namespace but init, us and the warm interpreter: a process
    forked as we list them is caught by the next sweep (_kill_and_reap repeats it until none is left)."""
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            pid = int(entry)
            if pid > 1 and pid != me and pid not in spared:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass


def _kill_and_reap(pid, status, kill_all, zygote=None):
    """Every process of the run killed and reaped (within 2 s). With kill_all, everything of our PID
    namespace but init and us; and the warm interpreter, `zygote`, when it is there: then by sweeps
    of /proc in place of kill(-1), until our only child is the warm interpreter."""
    # The process itself too: forked from the warm interpreter, it may not have made its group yet.
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass

    def kill_everything():
        if zygote is not None and zygote.alive:
            _sweep(zygote.spared())
        elif kill_all:
            try:
                os.kill(-1, signal.SIGKILL)
            except OSError:
                pass
        else:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass

    if kill_all:
        kill_everything()
    if status is None:
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    members = _members(pid, kill_all)
    deadline = time.monotonic() + 2
    while True:
        try:
            got, _ = os.waitpid(members, os.WNOHANG)
        except ChildProcessError:
            break
        if got != 0:
            if zygote is not None:
                zygote.reaped(got)
            continue
        if zygote is not None and zygote.alive and not _children(zygote):
            break
        if time.monotonic() > deadline:
            if zygote is not None and zygote.alive:
                zygote.close()  # what sweeps could not end, kill(-1) does: the warm interpreter with it
                deadline = time.monotonic() + 2
                continue
            break
        kill_everything()
        time.sleep(0.002)
    return status
