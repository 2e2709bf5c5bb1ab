"""The seccomp filter: libseccomp through ctypes (to build the BPF program and name syscalls), the
rules saying which calls the supervisor handles, which the filter answers itself, and the
user-notification interface the supervisor talks through."""

from __future__ import annotations

import ctypes
import errno
import os
import struct

from .linux import (AF_UNIX, CLONE_FILES, CLONE_FS, CLONE_NEW, CLONE_PARENT, CLONE_THREAD, CLONE_VFORK, CLONE_VM, FICLONE,
                    FICLONERANGE, FIDEDUPERANGE, MAP_ANONYMOUS, MAP_FIXED, MAP_SHARED, PR_SET_DUMPABLE, PR_SET_SECCOMP, U32)

SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3
SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV = 1 << 5
NOTIF_RECV, NOTIF_SEND, NOTIF_ID_VALID, NOTIF_ADDFD = 0xC0502100, 0xC0182101, 0x40082102, 0x40182103
NOTIF_SET_FLAGS, SYNC_WAKE_UP = 0x40082104, 1  # SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
FLAG_CONTINUE = 1
ADDFD_FLAG_SEND = 2
NOTIF = struct.Struct("<QIIiIQ6Q")
RESP = struct.Struct("<QqiI")
ADDFD = struct.Struct("<QIIII")


class _Seccomp:
    """libseccomp through ctypes: only to build the filter (once) and to name syscalls."""

    def __init__(self):
        for name in ("libseccomp.so.2", "/usr/lib/x86_64-linux-gnu/libseccomp.so.2",
                     "/usr/lib/aarch64-linux-gnu/libseccomp.so.2"):
            try:
                self.lib = ctypes.CDLL(name, use_errno=True)
                break
            except OSError:
                continue
        else:
            raise OSError("libseccomp2 não está instalada")
        self.lib.seccomp_init.restype = ctypes.c_void_p
        self.lib.seccomp_init.argtypes = [ctypes.c_uint32]
        self.lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        self.lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                                    ctypes.c_uint, ctypes.c_void_p]
        self.lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.lib.seccomp_release.argtypes = [ctypes.c_void_p]
        self.lib.seccomp_syscall_resolve_num_arch.restype = ctypes.c_void_p  # malloc'd name, freed by us
        self.lib.seccomp_syscall_resolve_num_arch.argtypes = [ctypes.c_uint32, ctypes.c_int]
        self.lib.free = ctypes.CDLL(None).free
        self.lib.free.argtypes = [ctypes.c_void_p]

    def nr(self, name: str) -> int | None:
        value = self.lib.seccomp_syscall_resolve_name(name.encode())
        return None if value < 0 else value

    def known(self, nr: int) -> bool:
        """Whether this libseccomp has a name for syscall `nr` of the native architecture."""
        name = self.lib.seccomp_syscall_resolve_num_arch(0, nr)  # 0: SCMP_ARCH_NATIVE
        if not name:
            return False
        self.lib.free(name)
        return True


_SECCOMP: _Seccomp | None = None


def _seccomp() -> _Seccomp:
    global _SECCOMP
    if _SECCOMP is None:
        _SECCOMP = _Seccomp()
    return _SECCOMP


def syscall_nr(name: str) -> int | None:
    return _seccomp().nr(name)


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("a", ctypes.c_uint64), ("b", ctypes.c_uint64)]


ACT_ALLOW, ACT_NOTIFY = 0x7FFF0000, 0x7FC00000
PROT_WRITE = 2
F_SETOWN, F_SETOWN_EX, FIOSETOWN, SIOCSPGRP = 8, 15, 0x8901, 0x8902
SOCK_DGRAM, SOCK_RAW, SOCK_TYPE_MASK = 2, 3, 0xF
PRIO_PGRP, PRIO_USER, IOPRIO_WHO_PGRP, IOPRIO_WHO_USER = 1, 2, 2, 3
OTHER_PROCESS = ("fcntl", "prlimit64", "sched_setscheduler", "sched_setparam", "sched_setaffinity",
                 "sched_setattr", "setpriority", "ioprio_set")
CMP_NE, CMP_EQ, CMP_MASKED_EQ = 1, 4, 7


def ACT_ERRNO(number: int) -> int:
    return 0x00050000 | (number & 0xFFFF)


# What the filter notifies (handled in Supervisor) and what it answers itself.
WRITE_OPEN_BITS = (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC)
EMULATED = ("write", "pwrite64", "writev", "pwritev", "pwritev2", "truncate", "ftruncate", "fallocate",
            "rename", "renameat", "renameat2", "unlink", "unlinkat", "rmdir", "mkdir", "mkdirat",
            "link", "linkat", "symlink", "symlinkat", "fsync", "fdatasync", "sync", "syncfs", "creat",
            "kill", "tkill", "tgkill", "pidfd_open", "sendfile", "copy_file_range", "splice", "msync",
            "rt_sigqueueinfo", "rt_tgsigqueueinfo", "bind", "connect")
REFUSED = {
    "io_uring_setup": "io_uring: escritas assim não passam pelas chamadas que o corretor observa",
    "io_uring_enter": "io_uring: escritas assim não passam pelas chamadas que o corretor observa",
    "io_uring_register": "io_uring: escritas assim não passam pelas chamadas que o corretor observa",
    # Linux AIO writes a file from the kernel's own context, with no write call for us to see.
    "io_setup": "AIO do Linux (io_setup): escritas assim não passam pelas chamadas que o corretor observa",
    "io_submit": "AIO do Linux (io_submit): escritas assim não passam pelas chamadas que o corretor observa",
    "process_vm_writev": "escrever na memória de outro processo",
    "process_vm_readv": "ler a memória de outro processo",
    "ptrace": "ptrace: depurar ou controlar outro processo",
    "seccomp": "instalar outro filtro seccomp: ele tiraria do corretor a visão das chamadas",
    "unshare": "criar namespaces", "setns": "entrar em namespaces", "mount": "montar sistemas de arquivos",
    "umount2": "desmontar sistemas de arquivos", "pivot_root": "trocar a raiz", "chroot": "trocar a raiz",
    "fsopen": "montar sistemas de arquivos", "fsmount": "montar sistemas de arquivos",
    "move_mount": "montar sistemas de arquivos", "open_tree": "montar sistemas de arquivos",
    "fspick": "montar sistemas de arquivos", "mount_setattr": "montar sistemas de arquivos",
    "mknod": "criar arquivos especiais (mknod)", "mknodat": "criar arquivos especiais (mknod)",
    "open_by_handle_at": "abrir arquivos por handle", "name_to_handle_at": "abrir arquivos por handle",
    "bpf": "bpf", "userfaultfd": "userfaultfd", "perf_event_open": "perf_event_open",
    "keyctl": "chaveiro do kernel", "add_key": "chaveiro do kernel", "request_key": "chaveiro do kernel",
}
ERRNO_PLAIN = {
    # tee and vmsplice only move data between pipes and memory: no file changes, they run as they are.
    "clone3": errno.ENOSYS, "openat2": errno.ENOSYS,
    "shmget": errno.ENOSYS, "semget": errno.ENOSYS, "msgget": errno.ENOSYS, "mq_open": errno.ENOSYS,
    # With no object of its own, every other SysV call would reach the machine's (reduced mode has no
    # IPC namespace, and Landlock does not cover them): they are named by small numbers.
    "shmat": errno.ENOSYS, "shmctl": errno.ENOSYS, "msgsnd": errno.ENOSYS, "msgrcv": errno.ENOSYS,
    "msgctl": errno.ENOSYS, "semop": errno.ENOSYS, "semtimedop": errno.ENOSYS, "semctl": errno.ENOSYS,
    "pidfd_send_signal": errno.EPERM,
}
# Reduced mode only: no new sessions or groups in the kernel, so killing the process group kills
# everything. The supervisor answers them from the groups the run believes it made (groups.py): a tool
# started with subprocess's start_new_session or process_group=0, then signalled by its group, works
# as it does under bubblewrap, and still belongs to the run's real group.
GROUPS = ("setsid", "setpgid", "getpgid", "getsid", "getpgrp",
          # Seen, never changed: a process about to exit still parents its children, whose groups are
          # then written down before they come back to us as orphans (a double-forked daemon's).
          "exit_group")
# Reduced mode only: metadata changes, fenced to the roots like writes.
METADATA = ("chmod", "fchmodat", "fchmodat2", "chown", "lchown", "fchownat", "utime", "utimes",
            "utimensat", "futimesat", "fchmod", "fchown", "setxattr", "lsetxattr", "fsetxattr",
            "removexattr", "lremovexattr", "fremovexattr")
# Reduced mode only: calls that look at a path, performed by the supervisor once the student's code
# has started (looks.py), so /tmp names the run's own temp folder. With AT_EMPTY_PATH, newfstatat and
# statx are fstat: not notified.
LOOKS = ("stat", "lstat", "newfstatat", "statx", "access", "faccessat", "faccessat2", "readlink", "readlinkat",
         "statfs", "chdir", "getxattr", "lgetxattr", "listxattr", "llistxattr")
AT_EMPTY_PATH = 0x1000
# Calls newer than the libseccomp the filter is built with have no name there, and the filter's default
# (allow) would let them through unseen: the extended-attribute "at" calls (setxattrat...; Linux
# 6.13), file_getattr/file_setattr (6.17), open_tree_attr, listmount... take paths the supervisor never
# reads, and Landlock does not fence extended attributes. Every number from where Linux numbers its
# calls alike on every architecture (424) up to NEWEST_CHECKED that libseccomp cannot name answers
# ENOSYS, as on an older kernel.
UNIFIED_FROM, NEWEST_CHECKED = 424, 511


def build_filter(reduced: bool) -> bytes:
    """The BPF program (built once per mode with libseccomp, loaded by each child)."""
    sc = _seccomp()
    lib = sc.lib
    ctx = lib.seccomp_init(ACT_ALLOW)
    if not ctx:
        raise OSError("seccomp_init")

    def rule(action, name, *cmps):
        nr = sc.nr(name)
        if nr is None:
            return  # not on this architecture (arm64 has no open, rename...)
        array = (_ArgCmp * max(1, len(cmps)))(*[_ArgCmp(*c) for c in cmps])
        rc = lib.seccomp_rule_add_array(ctx, action, nr, len(cmps), array)
        if rc < 0:
            raise OSError(-rc, f"seccomp_rule_add {name}")

    # Every open: one that may write is performed by the supervisor (opens.py); a read-only one is let
    # through on its flags alone, its path noted for the report's inspection hint (reads.py).
    for name in ("open", "openat"):
        rule(ACT_NOTIFY, name)
    for name in EMULATED:
        rule(ACT_NOTIFY, name)
    empty = (_ArgCmp * 1)()
    for nr in range(UNIFIED_FROM, NEWEST_CHECKED + 1):
        if not sc.known(nr):
            rc = lib.seccomp_rule_add_array(ctx, ACT_ERRNO(errno.ENOSYS), nr, 0, empty)
            if rc < 0:
                raise OSError(-rc, f"seccomp_rule_add {nr}")
    rule(ACT_NOTIFY, "mmap", (3, CMP_MASKED_EQ, MAP_SHARED | MAP_ANONYMOUS, MAP_SHARED))
    # What can take a mapping away (mappings.py's _confirm of a mapping made while other threads run
    # counts on seeing it before anything removes it): munmap, and a MAP_FIXED mapping over it.
    rule(ACT_NOTIFY, "mmap", (3, CMP_MASKED_EQ, MAP_FIXED, MAP_FIXED))
    rule(ACT_NOTIFY, "munmap")
    # A read-only shared mapping of a file opened for writing becomes writable only through these.
    for name in ("mprotect", "pkey_mprotect"):
        rule(ACT_NOTIFY, name, (2, CMP_MASKED_EQ, PROT_WRITE, PROT_WRITE))
    rule(ACT_NOTIFY, "mremap")
    rule(ACT_NOTIFY, "prctl", (0, CMP_MASKED_EQ, U32, PR_SET_SECCOMP))
    # Other ways to reach another process, checked like kill: the owner of a descriptor's SIGIO, and
    # another process's limits (RLIMIT_CPU 0 kills it, with no signal for Landlock's scope to stop).
    # F_SETOWN_EX and the ioctls take the owner through a pointer: refused.
    rule(ACT_NOTIFY, "fcntl", (1, CMP_MASKED_EQ, U32, F_SETOWN))
    rule(ACT_ERRNO(errno.EPERM), "fcntl", (1, CMP_MASKED_EQ, U32, F_SETOWN_EX))
    for request in (FIOSETOWN, SIOCSPGRP):
        rule(ACT_ERRNO(errno.EPERM), "ioctl", (1, CMP_MASKED_EQ, U32, request))
    rule(ACT_NOTIFY, "prlimit64", (0, CMP_NE, 0, 0))
    # Scheduling and I/O priority of another process, a group or the whole user: no signal either.
    for name in ("sched_setscheduler", "sched_setparam", "sched_setaffinity", "sched_setattr"):
        rule(ACT_NOTIFY, name, (0, CMP_NE, 0, 0))
    for name, user in (("setpriority", PRIO_USER), ("ioprio_set", IOPRIO_WHO_USER)):
        rule(ACT_NOTIFY, name, (1, CMP_NE, 0, 0))
        rule(ACT_NOTIFY, name, (0, CMP_MASKED_EQ, U32, user))
    rule(ACT_ERRNO(errno.EPERM), "prctl", (0, CMP_MASKED_EQ, U32, PR_SET_DUMPABLE))
    for name in REFUSED:
        rule(ACT_NOTIFY, name)
    for name, number in ERRNO_PLAIN.items():
        rule(ACT_ERRNO(number), name)
    rule(ACT_ERRNO(errno.EACCES), "socket", (0, CMP_NE, AF_UNIX, 0))
    # A UNIX datagram names its address with each sendto or sendmsg, no connect needed: a socket of
    # the machine (journald's /dev/log) would be in reach. Stream sockets can only talk to each other.
    # AF_UNIX makes a SOCK_RAW socket a datagram one (net/unix/af_unix.c, unix_create): refused alike.
    for name in ("socket", "socketpair"):
        for kind in (SOCK_DGRAM, SOCK_RAW):
            rule(ACT_ERRNO(errno.EACCES), name, (1, CMP_MASKED_EQ, SOCK_TYPE_MASK, kind))
    for request in (FICLONE, FICLONERANGE, FIDEDUPERANGE):
        rule(ACT_ERRNO(errno.EOPNOTSUPP), "ioctl", (1, CMP_MASKED_EQ, U32, request))
    # Sharing a descriptor table, cwd or memory with another process (not a thread) would let it
    # change what a checked call means before the kernel runs it.
    clone_rules = [(CLONE_FILES | CLONE_THREAD, CLONE_FILES), (CLONE_FS | CLONE_THREAD, CLONE_FS),
                   (CLONE_VM | CLONE_THREAD | CLONE_VFORK, CLONE_VM)]
    for mask, value in clone_rules:
        rule(ACT_ERRNO(errno.EPERM), "clone", (0, CMP_MASKED_EQ, mask, value))
    # A process in namespaces of its own: refused as unshare is, with a "refused" event (refusals.py).
    # And a child in our memory that is not our child (CLONE_VM with CLONE_PARENT): the checks of
    # mappings.py find the processes sharing a memory through the vfork waiting for its child.
    for mask in [*CLONE_NEW, CLONE_VM | CLONE_PARENT]:
        rule(ACT_NOTIFY, "clone", (0, CMP_MASKED_EQ, mask, mask))
    if reduced:
        for name in GROUPS:
            rule(ACT_NOTIFY, name)
        for name in METADATA:
            rule(ACT_NOTIFY, name)
        for name in LOOKS:
            if name == "newfstatat":
                rule(ACT_NOTIFY, name, (3, CMP_MASKED_EQ, AT_EMPTY_PATH, 0))
            elif name == "statx":
                rule(ACT_NOTIFY, name, (2, CMP_MASKED_EQ, AT_EMPTY_PATH, 0))
            else:
                rule(ACT_NOTIFY, name)
    fd = os.memfd_create("filtro", 0)
    try:
        rc = lib.seccomp_export_bpf(ctx, fd)
        if rc < 0:
            raise OSError(-rc, "seccomp_export_bpf")
        size = os.lseek(fd, 0, os.SEEK_END)
        return os.pread(fd, size, 0)
    finally:
        os.close(fd)
        lib.seccomp_release(ctx)


_FILTERS: dict[bool, bytes] = {}


def filter_program(reduced: bool) -> bytes:
    """The mode's BPF program, built once per process (the run's own process loads it: run.py)."""
    if reduced not in _FILTERS:
        _FILTERS[reduced] = build_filter(reduced)
    return _FILTERS[reduced]


_NRS: dict[int, str] = {}


def handled_calls() -> dict[int, str]:
    """Number -> name of every call the filter may hand to the supervisor."""
    if _NRS:
        return _NRS
    names = set(EMULATED) | set(REFUSED) | set(METADATA) | set(OTHER_PROCESS) | set(LOOKS) | set(GROUPS) | {"open", "openat", "mmap", "prctl", "clone",
                                                                                        "mprotect", "pkey_mprotect", "mremap", "munmap"}
    out = {}
    for name in names:
        nr = syscall_nr(name)
        if nr is not None:
            out[nr] = name
    _NRS.update(out)
    return out


# Calls the supervisor makes itself through libc.syscall: Python has no wrapper for them.
NR_PIDFD_GETFD = syscall_nr("pidfd_getfd")
NR_OPENAT2 = syscall_nr("openat2")
NR_RENAMEAT2 = syscall_nr("renameat2")
NR_SECCOMP = syscall_nr("seccomp")
