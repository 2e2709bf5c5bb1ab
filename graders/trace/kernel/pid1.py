"""The sandbox's PID 1 (bwrap --as-pid-1): makes the PIDs a run sees look like a student's machine
(a PID 1 named like init, a parent shell and PIDs in the thousands), then forks the server."""

from __future__ import annotations

import ctypes
import os
import random

from .linux import PR_SET_DUMPABLE, PR_SET_NAME, libc

# A fresh PID namespace numbers from 1; a desktop that has been up for a while is in the thousands.
# Random, so that the first run's PID is no signature either. Each burnt PID is one thread.
BURN_PIDS = (1500, 6000)
INIT_TITLE, INIT_NAME = b"/sbin/init", b"systemd"  # as on Debian and Ubuntu, whose init is systemd
SHELL_TITLE = SHELL_NAME = b"bash"  # the run's parent: a terminal's shell


_burner: int | None = None


def start_burning() -> None:
    """Called first thing in PID 1, before the server's modules are imported: a child of ours burns
    the PIDs (burn_pids) on another core while we import them and build the seccomp filters, and
    become_init waits for it before forking the server. Burning is most of a sandbox's start."""
    global _burner
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    count = random.SystemRandom().randint(*BURN_PIDS)
    try:
        _burner = os.fork()
    except OSError:
        _burner = None
        burn_pids(count)
        return
    if _burner == 0:
        try:
            burn_pids(count)
        finally:
            os._exit(0)


def become_init() -> None:
    """Returns only in the server, a child of ours; we stay PID 1, reap, and end with the server."""
    global _burner
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # same uid as the runs: nobody may write our memory
    set_title(INIT_TITLE, INIT_NAME)
    if _burner is None:
        burn_pids(random.SystemRandom().randint(*BURN_PIDS))
    else:
        from .seccomp import filter_program

        filter_program(True)  # built here while the burner works; the server inherits them (cached)
        filter_program(False)
        while True:
            try:
                os.waitpid(_burner, 0)
                break
            except InterruptedError:
                continue
            except ChildProcessError:
                break
        _burner = None
    server = os.fork()
    if server == 0:
        set_title(SHELL_TITLE, SHELL_NAME)
        return
    # The server holds the control socket alone: its end is what tells the CLI it is gone.
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(1)
        except InterruptedError:
            continue
        if pid == server:
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)  # the namespace ends with us


# A bare kernel thread per PID (libc's clone, not pthread_create): it shares our memory, files and
# signal handlers, runs getpid on a stack of ours and exits; CLONE_VFORK holds us until it is gone,
# so one small stack serves them all and nothing of ours runs beside it. Measured here: ~21 us a PID
# against ~38 us with pthread_create + pthread_join (no stack, TLS or robust-list set-up), which
# made the burn most of a bubblewrap sandbox's start (~140 ms for the mean 3,750 PIDs).
_CLONE_FLAGS = 0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000 | 0x4000  # VM FS FILES SIGHAND THREAD SYSVSEM VFORK
_STACK_SIZE = 64 * 1024


def burn_pids(count: int) -> None:
    """Use up `count` PIDs, one thread each: no address space to copy, and the thread runs a C
    function that returns at once (getpid; its argument is ignored and its result discarded), so
    it never waits for the GIL; a Python thread costs ten times as much on a busy machine."""
    routine = ctypes.cast(libc.getpid, ctypes.c_void_p)
    try:
        clone = libc.clone
        clone.restype = ctypes.c_int
        clone.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    except AttributeError:
        clone = None
    if clone is not None:
        stack = ctypes.create_string_buffer(_STACK_SIZE)
        top = (ctypes.addressof(stack) + _STACK_SIZE - 64) & ~15  # the ABI's 16-byte alignment
        while count > 0 and clone(routine, top, _CLONE_FLAGS, None) > 0:
            count -= 1
    thread = ctypes.c_ulong()
    for _ in range(count):  # what clone could not burn (not in this libc, or refused)
        if libc.pthread_create(ctypes.byref(thread), None, routine, None) != 0:
            return  # out of threads: fewer PIDs burnt, nothing worse
        libc.pthread_join(thread.value, None)


def set_title(title: bytes, name: bytes) -> None:
    """What /proc/self/cmdline and comm show: our argv area overwritten in place (setproctitle's
    trick: with its last byte not NUL, the kernel shows it up to the first NUL) and PR_SET_NAME.
    CPython keeps its own copy of argv, so nothing of ours reads that area again."""
    with open("/proc/self/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    start, end = int(fields[45]), int(fields[46])  # arg_start and arg_end (fields 48 and 49)
    size = end - start
    text = title[:size - 2] + b"\0"
    ctypes.memmove(start, text + b"\0" * (size - len(text) - 1) + b" ", size)
    libc.prctl(PR_SET_NAME, ctypes.c_char_p(name[:15]), 0, 0, 0)
