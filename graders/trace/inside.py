"""What a run's own process does before the student's code: confine itself, install the seccomp filter
and hand its listener over (before its exec, or, forked from the warm interpreter, right
after the fork) and, as that warm interpreter, fork each run's process. Standard library only: the
warm interpreter gets it compiled, like the runner (graders/trace/kernel/run.py). It decides nothing."""

import ctypes
import fcntl
import os
import resource
import struct
import sys

import _socket

CHANNEL_FD = 3
PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 4, 24, 38
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_libc = []


def _lib():
    if not _libc:
        lib = ctypes.CDLL(None, use_errno=True)
        lib.syscall.restype = ctypes.c_long
        _libc.append(lib)
    return _libc[0]


def confine(settings, out_fd, chan_fd):
    """In the run's process, the first thing it does: a session of its own, a student's umask, the
    run's limits, its folder, /dev/null, the output pipe and the channel on 0-3 and nothing else,
    the run's Landlock domain (nested in the caller's), no capability, no new privileges."""
    libc = _lib()
    os.setsid()
    # The supervisor runs with umask 0 (it applies the student's by hand); the student gets a
    # student's machine's usual one, or os.umask() and the modes it creates would betray a grader.
    os.umask(0o022)
    for name, value in settings["limits"].items():
        try:
            resource.setrlimit(getattr(resource, name), (value, value))
        except (ValueError, OSError, AttributeError):
            pass
    os.chdir(settings["work"])
    # Above 3 (dup2 onto 0-3 would clobber a source): the caller's lowest free number may be 3.
    null = fcntl.fcntl(os.open("/dev/null", os.O_RDONLY | os.O_CLOEXEC), fcntl.F_DUPFD, CHANNEL_FD + 1)
    for fd in (out_fd, chan_fd):
        if fd <= 3:
            raise OSError("descritores inesperados")
    os.dup2(null, 0)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    os.dup2(chan_fd, CHANNEL_FD)
    if settings.get("landlock_fd") is not None:
        # Reduced mode's fence for reads, TCP and signals (Landlock needs no_new_privs first).
        if (libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                or libc.syscall(settings["nr_landlock_restrict_self"], settings["landlock_fd"], 0) != 0):
            os._exit(122)
    os.closerange(CHANNEL_FD + 1, 1 << 16)
    if os.getuid() == 0:
        drop_capabilities()  # root without a sandbox (reduced mode): none, not even after exec
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        os._exit(120)


def drop_capabilities() -> bool:
    """No capability for the calling thread, now or after an exec (the bounding set emptied, then the
    raw capset with pid 0, which changes the calling thread only: glibc does not broadcast it)."""
    libc = _lib()
    for cap in range(64):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    return libc.capset(struct.pack("<Ii", _LINUX_CAPABILITY_VERSION_3, 0), bytes(24)) == 0


def seal(settings, program):
    """Install the seccomp filter (`program`, BPF) and send its listener down the channel: from here
    on every call the filter names waits for the supervisor. Any failure is an exit: no run goes on
    unwatched (the supervisor, with no listener, ends it "broken")."""
    libc = _lib()
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = struct.pack("HxxxxxxQ", len(program) // 8, ctypes.addressof(buffer))
    listener = libc.syscall(settings["nr_seccomp"], settings["set_mode_filter"], settings["flags"], fprog)
    if listener < 0:  # a kernel without SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (before 5.19)
        listener = libc.syscall(settings["nr_seccomp"], settings["set_mode_filter"], settings["fallback_flags"], fprog)
    if listener < 0:
        os._exit(121)
    channel = _socket.socket(fileno=CHANNEL_FD)
    try:
        channel.sendmsg([b"L"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, struct.pack("i", listener))])
    except OSError:
        # Nobody will hold the listener: closed first, or our own exit_group (a call the filter
        # names) would wait for an answer from ourselves for ever.
        os.close(listener)
        os._exit(121)
    channel.detach()
    os.close(listener)


def serve_forks(settings):
    """The warm interpreter's loop, on fd 3: for each run the supervisor sends the run's
    output pipe and channel; this process forks the run's process, which returns from here confined,
    and the next warm interpreter, which waits for the next run. It then answers both pids and exits,
    so both become the supervisor's children (it is their subreaper), as a process it forked would be.
    It is never dumpable: a run cannot reach it through /proc, and its other calls to another process
    (signals, limits, priorities) are checked by the supervisor like any other."""
    _lib().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    control = _socket.socket(fileno=CHANNEL_FD)
    while True:
        try:
            data, ancillary, _flags, _address = control.recvmsg(1, _socket.CMSG_SPACE(8))
        except InterruptedError:
            continue
        if not data:
            os._exit(0)  # the supervisor is gone
        fds = []
        for level, kind, payload in ancillary:
            if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
                fds += [int.from_bytes(payload[i:i + 4], sys.byteorder, signed=True)
                        for i in range(0, len(payload) - len(payload) % 4, 4)]
        if len(fds) != 2:
            os._exit(4)
        run = os.fork()
        if run == 0:
            control.detach()  # closed by confine with every other descriptor above 3
            confine(settings, fds[0], fds[1])
            # Not dumpable as the warm interpreter was: the run is an ordinary process (an exec would
            # have made it one too), which the supervisor reads through /proc and process_vm_readv.
            if _lib().prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0:
                os._exit(123)
            return
        try:
            following = os.fork()
        except OSError:
            os.kill(run, 9)  # never a run the supervisor does not know of
            os._exit(5)
        if following == 0:
            for fd in fds:
                os.close(fd)
            continue
        control.sendall(b"%d %d\n" % (run, following))
        os._exit(0)
