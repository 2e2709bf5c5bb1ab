"""The kernel tap (CLI): runs student code under a seccomp user-notification filter and performs
every file-system mutation itself, so the trace records exactly what reached the disk.

Trusted side only: this module never runs student code. The child it forks installs the filter
and then execs `python3 -c <graders/trace/runner.py>`; every notified call of that process, its
threads and its children comes to one listener here, is emulated (or refused, or let through when
that is provably harmless) and answered. See `run_traced`.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import select
import signal
import socket
import stat
import struct
import time

from .disk import read_tree
from .agent_server import AgentServer
from .ops import MAX_DATA, MAX_EVENTS, Event, Root, Trace

RUNNER_SOURCE = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner.py"), encoding="utf-8").read()

OUTPUT_KEEP = 20_000          # characters of output kept in the trace
FLOOD_LIMIT = 1_000_000       # bytes of output attempted before the run is stopped
MAX_LINE = 8 << 20            # one request on the model channel
MAX_OUTBOX = 64 << 20
MAX_FINAL = 4 << 20
CHANNEL_FD = 3

# --- kernel interfaces ---------------------------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.process_vm_readv.restype = ctypes.c_ssize_t
_libc.process_vm_readv.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p,
                                   ctypes.c_ulong, ctypes.c_ulong]

SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3
SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV = 1 << 5
NOTIF_RECV, NOTIF_SEND, NOTIF_ID_VALID, NOTIF_ADDFD = 0xC0502100, 0xC0182101, 0x40082102, 0x40182103
FLAG_CONTINUE = 1
ADDFD_FLAG_SEND = 2
_NOTIF = struct.Struct("<QIIiIQ6Q")
_RESP = struct.Struct("<QqiI")
_ADDFD = struct.Struct("<QIIII")

PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_CHILD_SUBREAPER, PR_CAPBSET_DROP = 4, 38, 36, 24
PR_SET_SECCOMP = 22
AT_FDCWD = -100
AT_SYMLINK_FOLLOW, AT_REMOVEDIR, AT_EMPTY_PATH = 0x400, 0x200, 0x1000
O_TMPFILE_BIT = 0o20000000
O_PATH = 0o10000000
RWF_DSYNC, RWF_SYNC, RWF_APPEND = 2, 4, 16
RESOLVE_NO_XDEV, RESOLVE_NO_MAGICLINKS, RESOLVE_NO_SYMLINKS, RESOLVE_BENEATH = 1, 2, 4, 8
MAP_SHARED, MAP_ANONYMOUS = 0x01, 0x20
CLONE_VM, CLONE_FS, CLONE_FILES, CLONE_VFORK, CLONE_THREAD = 0x100, 0x200, 0x400, 0x4000, 0x10000
CLONE_NEW = (0x80, 0x20000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
AF_UNIX = 1
FICLONE, FICLONERANGE, FIDEDUPERANGE = 0x40049409, 0x4020940D, 0xC0189436
_U32 = 0xFFFFFFFF


def _s32(value: int) -> int:
    value &= _U32
    return value - (1 << 32) if value & 0x80000000 else value


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

    def nr(self, name: str) -> int | None:
        value = self.lib.seccomp_syscall_resolve_name(name.encode())
        return None if value < 0 else value


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
CMP_NE, CMP_EQ, CMP_MASKED_EQ = 1, 4, 7


def ACT_ERRNO(number: int) -> int:
    return 0x00050000 | (number & 0xFFFF)


# What the filter notifies (handled in Supervisor) and what it answers itself.
WRITE_OPEN_BITS = (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC)
EMULATED = ("write", "pwrite64", "writev", "pwritev", "pwritev2", "truncate", "ftruncate", "fallocate",
            "rename", "renameat", "renameat2", "unlink", "unlinkat", "rmdir", "mkdir", "mkdirat",
            "link", "linkat", "symlink", "symlinkat", "fsync", "fdatasync", "sync", "syncfs", "creat",
            "kill", "tkill", "tgkill", "pidfd_open")
REFUSED = {
    "io_uring_setup": "io_uring: escritas assim não passam pelas chamadas que o corretor observa",
    "io_uring_enter": "io_uring: escritas assim não passam pelas chamadas que o corretor observa",
    "io_uring_register": "io_uring: escritas assim não passam pelas chamadas que o corretor observa",
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
    "clone3": errno.ENOSYS, "openat2": errno.ENOSYS, "copy_file_range": errno.ENOSYS,
    "sendfile": errno.ENOSYS, "splice": errno.ENOSYS, "tee": errno.ENOSYS, "vmsplice": errno.ENOSYS,
    "shmget": errno.ENOSYS, "semget": errno.ENOSYS, "msgget": errno.ENOSYS, "mq_open": errno.ENOSYS,
    "pidfd_send_signal": errno.EPERM, "connect": errno.EACCES, "bind": errno.EACCES,
}
# Reduced mode only: no new sessions or groups, so killing the process group kills everything.
ERRNO_REDUCED = {"setsid": errno.EPERM, "setpgid": errno.EPERM}
# Reduced mode only: metadata changes, fenced to the roots like writes.
METADATA = ("chmod", "fchmodat", "fchmodat2", "chown", "lchown", "fchownat", "utime", "utimes",
            "utimensat", "futimesat", "fchmod", "fchown", "setxattr", "lsetxattr", "fsetxattr",
            "removexattr", "lremovexattr", "fremovexattr")


def _build_filter(reduced: bool) -> bytes:
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

    for name, flags_arg in (("open", 1), ("openat", 2)):
        for bit in WRITE_OPEN_BITS:
            rule(ACT_NOTIFY, name, (flags_arg, CMP_MASKED_EQ, bit, bit))
    for name in EMULATED:
        rule(ACT_NOTIFY, name)
    rule(ACT_NOTIFY, "mmap", (3, CMP_MASKED_EQ, MAP_SHARED | MAP_ANONYMOUS, MAP_SHARED))
    rule(ACT_NOTIFY, "prctl", (0, CMP_MASKED_EQ, _U32, PR_SET_SECCOMP))
    rule(ACT_ERRNO(errno.EPERM), "prctl", (0, CMP_MASKED_EQ, _U32, PR_SET_DUMPABLE))
    for name in REFUSED:
        rule(ACT_NOTIFY, name)
    for name, number in ERRNO_PLAIN.items():
        rule(ACT_ERRNO(number), name)
    rule(ACT_ERRNO(errno.EACCES), "socket", (0, CMP_NE, AF_UNIX, 0))
    for request in (FICLONE, FICLONERANGE, FIDEDUPERANGE):
        rule(ACT_ERRNO(errno.EOPNOTSUPP), "ioctl", (1, CMP_MASKED_EQ, _U32, request))
    # Sharing a descriptor table, cwd or memory with another process (not a thread) would let it
    # change what a checked call means before the kernel runs it.
    clone_rules = [(CLONE_FILES | CLONE_THREAD, CLONE_FILES), (CLONE_FS | CLONE_THREAD, CLONE_FS),
                   (CLONE_VM | CLONE_THREAD | CLONE_VFORK, CLONE_VM)] + [(bit, bit) for bit in CLONE_NEW]
    for mask, value in clone_rules:
        rule(ACT_ERRNO(errno.EPERM), "clone", (0, CMP_MASKED_EQ, mask, value))
    if reduced:
        for name, number in ERRNO_REDUCED.items():
            rule(ACT_ERRNO(number), name)
        for name in METADATA:
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


_FILTERS: dict = {}


def _filter(reduced: bool):
    if reduced not in _FILTERS:
        program = _build_filter(reduced)
        buffer = ctypes.create_string_buffer(program, len(program))
        fprog = struct.pack("HxxxxxxQ", len(program) // 8, ctypes.addressof(buffer))
        _FILTERS[reduced] = (buffer, ctypes.create_string_buffer(fprog, len(fprog)))
    return _FILTERS[reduced]


_NRS: dict[int, str] = {}


def _nrs() -> dict[int, str]:
    if _NRS:
        return _NRS
    names = set(EMULATED) | set(REFUSED) | set(METADATA) | {"open", "openat", "mmap", "prctl"}
    out = {}
    for name in names:
        nr = syscall_nr(name)
        if nr is not None:
            out[nr] = name
    _NRS.update(out)
    return out


class _Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


def _errno_name(number: int) -> str:
    return errno.errorcode.get(number, str(number))


class Refused(Exception):
    def __init__(self, number: int, call: str = "", message: str = ""):
        self.number, self.call, self.message = number, call, message


class Stop(Exception):
    """The run must end now (`end`: "flood", "runaway", "protocol")."""

    def __init__(self, end: str, limits: dict | None = None):
        self.end, self.limits = end, limits or {}


def prepare_supervisor():
    """Once per supervisor process: nobody may read or trace it; orphans of a run come back to it;
    modes are applied by hand (the target's umask), never through our own."""
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    os.umask(0)
    _filter(True)
    _filter(False)


# --- the supervisor of one run -------------------------------------------------------------------


class _Task:
    """What one notification is about: the calling thread, its process, its descriptors."""

    __slots__ = ("tid", "tgid", "umask", "threads")

    def __init__(self, tid):
        self.tid = tid
        try:
            fd = os.open(f"/proc/{tid}/status", os.O_RDONLY)
            try:
                text = os.read(fd, 8192)
            finally:
                os.close(fd)
        except OSError:
            raise Refused(errno.ESRCH) from None
        values = {}
        for line in text.split(b"\n"):
            key, _, value = line.partition(b":")
            if key in (b"Tgid", b"Umask", b"Threads"):
                values[key] = value.strip()
        self.tgid = int(values.get(b"Tgid", tid))
        self.umask = int(values.get(b"Umask", b"0022"), 8)
        self.threads = int(values.get(b"Threads", b"1"))


class Supervisor:
    def __init__(self, roots, *, reduced: bool, source: str, filename: str, job: dict):
        self.reduced = reduced
        self.events: list[Event] = []
        self.data_bytes = 0
        self.nodes: dict[tuple, int] = {}
        self.next_node = 0
        self.roots = []  # (role, path, fd, dev)
        for role, path in roots:
            path = os.path.realpath(path)
            fd = os.open(path, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
            st = os.fstat(fd)
            self.roots.append((role, path, fd, st.st_dev))
        self.root_devs = {r[3] for r in self.roots}
        self.setup = {"source": source, "filename": filename, "job": job}
        self.agent = AgentServer(self._record)
        self.output = bytearray()
        self.output_attempted = 0
        self.report: dict = {}
        self.inbox = b""
        self.outbox = b""
        self.pidfds: dict[int, int] = {}
        self.handlers = {nr: getattr(self, "_on_" + name, None) for nr, name in _nrs().items()}
        self.pending: list = []  # writes to full pipes of multi-threaded processes: (id, dup, data)
        self.pipe_key = None
        self.chan_key = None
        self.child_pgid = 0
        self.self_pid = os.getpid()
        self.self_pgid = os.getpgid(0)
        self.listener = -1
        self.end_seen = False

    # nodes and events

    def node_of(self, st, fresh=False) -> int:
        key = (st.st_dev, st.st_ino)
        if fresh or key not in self.nodes:
            self.next_node += 1
            self.nodes[key] = self.next_node
        return self.nodes[key]

    def _record(self, event: Event):
        self.events.append(event)
        if len(self.events) > MAX_EVENTS:
            raise Stop("runaway", {"events": MAX_EVENTS})

    def roots_out(self) -> list[Root]:
        out = []
        for role, path, fd, _dev in self.roots:
            node = self.node_of(os.fstat(fd))
            out.append(Root(role, node, path, self._entries(path, node)))
        return out

    def _entries(self, path, node) -> list:
        entries, pending = [], [(path, node, 0)]
        others = {r[1] for r in self.roots if r[1] != path}
        while pending and len(entries) < 500:
            folder, dnode, depth = pending.pop()
            try:
                names = sorted(os.listdir(folder))
            except OSError:
                continue
            for name in names:
                full = os.path.join(folder, name)
                try:
                    st = os.lstat(full)
                except OSError:
                    continue
                entry = {"node": self.node_of(st), "dir": dnode, "name": name}
                if stat.S_ISDIR(st.st_mode):
                    entry["kind"] = "dir"
                    if full not in others and depth < 12:
                        pending.append((full, entry["node"], depth + 1))
                elif stat.S_ISLNK(st.st_mode):
                    entry.update(kind="symlink", target=os.readlink(full))
                else:
                    entry["kind"] = "file"
                    try:
                        with open(full, "rb") as f:
                            entry["data"] = f.read(MAX_FINAL)
                    except OSError:
                        entry["data"] = b""
                entries.append(entry)
        return entries

    def final(self) -> dict:
        out = {}
        paths = sorted((r[1] for r in self.roots), key=len, reverse=True)
        for path in paths:
            inner = [p for p in paths if p != path and p.startswith(path + "/")]
            for rel, data in read_tree(path).items():
                full = os.path.join(path, rel)
                if any(full == p or full.startswith(p + "/") for p in inner):
                    continue
                out[full] = data
        return out

    # talking to the kernel

    def respond(self, nid, value=0, error=0, flags=0):
        try:
            fcntl.ioctl(self.listener, NOTIF_SEND, _RESP.pack(nid, value, -error if error else 0, flags))
        except OSError as exc:
            if exc.errno != errno.ENOENT:  # the caller died meanwhile: nothing to answer
                raise

    def valid(self, nid) -> bool:
        try:
            fcntl.ioctl(self.listener, NOTIF_ID_VALID, struct.pack("<Q", nid))
            return True
        except OSError:
            return False

    def pidfd(self, task: _Task) -> int:
        fd = self.pidfds.get(task.tgid)
        if fd is None:
            try:
                fd = os.pidfd_open(task.tgid)
            except OSError:
                raise Refused(errno.ESRCH) from None
            self.pidfds[task.tgid] = fd
        return fd

    def getfd(self, task: _Task, target_fd: int) -> int:
        """Our duplicate of the target's descriptor (the same open file description)."""
        target_fd = _s32(target_fd)
        if target_fd < 0:
            raise Refused(errno.EBADF)
        for attempt in range(2):
            fd = _libc.syscall(NR_PIDFD_GETFD, self.pidfd(task), target_fd, 0)
            if fd >= 0:
                os.set_inheritable(fd, False)
                return fd
            err = ctypes.get_errno()
            if err == errno.ESRCH and attempt == 0:  # a stale pidfd (that process number was reused)
                os.close(self.pidfds.pop(task.tgid))
                continue
            raise Refused(errno.EBADF if err == errno.EBADF else err)
        raise Refused(errno.ESRCH)

    def read_mem(self, tid, address, size) -> bytes:
        if size <= 0:
            return b""
        buffer = ctypes.create_string_buffer(size)
        local = _Iovec(ctypes.addressof(buffer), size)
        remote = _Iovec(address, size)
        got = _libc.process_vm_readv(tid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
        if got == size:
            return buffer.raw
        # Part of it unreadable: page by page, up to the first bad page (a short write then).
        chunks = []
        page = 4096
        while size > 0:
            step = min(size, page - address % page)
            local = _Iovec(ctypes.addressof(buffer), step)
            remote = _Iovec(address, step)
            got = _libc.process_vm_readv(tid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
            if got <= 0:
                break
            chunks.append(buffer.raw[:got])
            if got < step:
                break
            address += step
            size -= step
        return b"".join(chunks)

    def read_path(self, tid, address) -> bytes:
        if address == 0:
            raise Refused(errno.EFAULT)
        data = b""
        while len(data) < 4096:
            step = 4096 - address % 4096 if not data else 4096
            chunk = self.read_mem(tid, address, step)
            if not chunk:
                break
            end = chunk.find(b"\0")
            if end >= 0:
                return data + chunk[:end]
            data += chunk
            address += len(chunk)
            if len(chunk) < step:
                break
        raise Refused(errno.ENAMETOOLONG if len(data) >= 4096 else errno.EFAULT)

    def read_iov(self, tid, address, count) -> bytes:
        count = _s32(count)
        if count < 0 or count > 1024:
            raise Refused(errno.EINVAL)
        raw = self.read_mem(tid, address, 16 * count)
        if len(raw) < 16 * count:
            raise Refused(errno.EFAULT)
        parts, total = [], 0
        for i in range(count):
            base, length = struct.unpack_from("<QQ", raw, 16 * i)
            length = min(length, MAX_DATA + 1 - total)
            chunk = self.read_mem(tid, base, length)
            parts.append(chunk)
            total += len(chunk)
            if len(chunk) < length or total > MAX_DATA:
                break
        if count and not total and any(struct.unpack_from("<QQ", raw, 16 * i)[1] for i in range(count)):
            raise Refused(errno.EFAULT)
        return b"".join(parts)

    # the main loop -------------------------------------------------------------------------------

    def handle(self, raw: bytes):
        nid, tid, _flags, nr, _arch, _ip, *args = _NOTIF.unpack(raw)
        handler = self.handlers.get(nr)
        try:
            task = _Task(tid)
            if handler is None:
                raise Refused(errno.ENOSYS)
            result = handler(nid, task, args)
            if result is not None:  # handlers that answered themselves (ADDFD) return None
                if result == "continue":
                    self.respond(nid, flags=FLAG_CONTINUE)
                elif result == "pending":
                    pass
                else:
                    self.respond(nid, value=result)
        except Refused as exc:
            if exc.call:
                self._record(Event("refused", ok=False, errno=_errno_name(exc.number),
                                   payload={"call": exc.call, "message": exc.message}))
            self.respond(nid, error=exc.number)

    # opens ---------------------------------------------------------------------------------------

    def base_dir(self, task: _Task, dirfd: int, path: bytes) -> str:
        if path.startswith(b"/"):
            return "/"
        dirfd = _s32(dirfd)
        if dirfd == AT_FDCWD:
            try:
                return os.readlink(f"/proc/{task.tid}/cwd")
            except OSError:
                raise Refused(errno.ENOENT) from None
        dup = self.getfd(task, dirfd)
        try:
            if not stat.S_ISDIR(os.fstat(dup).st_mode):
                raise Refused(errno.ENOTDIR)
            return os.readlink(f"/proc/self/fd/{dup}")
        finally:
            os.close(dup)

    def resolve(self, task: _Task, dirfd: int, path: bytes, follow: bool):
        """(parent, name) as the kernel would find them for the target, or ("fd", tgid, fd) for a
        /proc/<pid>/fd/<n> link that is the final component."""
        if not path:
            raise Refused(errno.ENOENT)
        base = self.base_dir(task, dirfd, path)
        if not base.startswith("/") or base.endswith(" (deleted)"):
            raise Refused(errno.ENOENT)
        try:
            text = path.decode("utf-8", "surrogateescape")
        except UnicodeDecodeError:
            raise Refused(errno.EINVAL) from None
        trailing = text.endswith("/")
        parts = [p for p in text.split("/") if p]
        current = [] if base == "/" else base.strip("/").split("/")
        links = 0
        while parts:
            comp = parts.pop(0)
            last = not parts
            if comp == ".":
                if last:
                    return "/" + "/".join(current[:-1]) if current else "/", current[-1] if current else "."
                continue
            if comp == "..":
                if current:
                    current.pop()
                if last:
                    return ("/" + "/".join(current[:-1]) if current else "/"), (current[-1] if current else ".")
                continue
            if current == ["proc"] and comp in ("self", "thread-self"):
                if comp == "thread-self":
                    parts[:0] = ["task", str(task.tid)]
                comp = str(task.tgid)
                current.append(comp)
                if not parts:
                    return "/proc", comp
                continue
            candidate = "/" + "/".join(current + [comp])
            if last and not follow and not trailing:
                return "/" + "/".join(current), comp
            try:
                st = os.lstat(candidate)
            except FileNotFoundError:
                if last:
                    return "/" + "/".join(current), comp
                raise Refused(errno.ENOENT) from None
            except OSError as exc:
                raise Refused(exc.errno or errno.EACCES) from None
            if stat.S_ISLNK(st.st_mode):
                if len(current) == 3 and current[0] == "proc" and current[2] == "fd" and last:
                    return ("fd", int(current[1]) if current[1].isdigit() else -1, int(comp) if comp.isdigit() else -1)
                links += 1
                if links > 40:
                    raise Refused(errno.ELOOP)
                try:
                    target = os.readlink(candidate)
                except OSError as exc:
                    raise Refused(exc.errno or errno.EACCES) from None
                if current and current[0] == "proc" and (not target.startswith("/") or target.endswith(" (deleted)")):
                    raise Refused(errno.ENOENT)  # a magic link we cannot follow by name
                if target.startswith("/"):
                    current = []
                parts[:0] = [p for p in target.split("/") if p]
                if not parts:
                    if last:
                        return ("/" + "/".join(current[:-1]) if current else "/"), (current[-1] if current else ".")
                continue
            if last:
                return "/" + "/".join(current), comp
            if not stat.S_ISDIR(st.st_mode):
                raise Refused(errno.ENOTDIR)
            current.append(comp)
        return ("/" + "/".join(current[:-1]) if current else "/"), (current[-1] if current else ".")

    def root_for(self, parent: str):
        best = None
        for root in self.roots:
            path = root[1]
            if parent == path or parent.startswith(path.rstrip("/") + "/"):
                if best is None or len(path) > len(best[1]):
                    best = root
        return best

    def open_parent(self, parent: str):
        """(fd, is_root_fd) for a directory inside a root, opened beneath it with no symlinks, so a
        concurrent swap of a folder for a link cannot take us out of the root."""
        root = self.root_for(parent)
        if root is None:
            return None
        rel = os.path.relpath(parent, root[1])
        if rel == ".":
            return root[2], True
        how = _OpenHow(os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC, 0,
                       RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
        raw = rel.encode("utf-8", "surrogateescape")
        fd = _libc.syscall(NR_OPENAT2, root[2], raw, ctypes.byref(how), ctypes.sizeof(how))
        if fd < 0:
            raise Refused(ctypes.get_errno())
        return fd, False

    def outside(self, task: _Task, call: str, what: str):
        """A mutation outside the roots: the kernel may do it with the target's own rights when
        nothing else can change the call meanwhile; otherwise, and always in reduced mode, no."""
        if not self.reduced and task.threads == 1:
            return "continue"
        reason = ("fora das pastas de trabalho do exercício" if self.reduced else
                  "fora das pastas de trabalho, com outras threads rodando")
        raise Refused(errno.EACCES, call, f"{what} {reason}: o corretor não pode acompanhar essa mudança")

    def _open_common(self, nid, task: _Task, dirfd, path_addr, flags, mode):
        flags &= _U32
        path = self.read_path(task.tid, path_addr)
        if not self.valid(nid):
            return None
        if flags & O_PATH:
            return "continue" if task.threads == 1 else self.outside(task, "open", "abrir")
        tmpfile = flags & O_TMPFILE_BIT == O_TMPFILE_BIT
        follow = not (flags & os.O_NOFOLLOW or (flags & os.O_CREAT and flags & os.O_EXCL)) and not tmpfile
        where = self.resolve(task, dirfd, path, follow if not tmpfile else True)
        if where[0] == "fd":
            return self._reopen(nid, task, where, flags)
        parent, name = where
        full = parent.rstrip("/") + "/" + name
        if full == "/dev/null" and not tmpfile:
            return self._install(nid, os.open("/dev/null", flags & ~(os.O_CREAT | os.O_EXCL | os.O_CLOEXEC)), flags)
        target_dir = full if tmpfile else parent
        opened = self.open_parent(target_dir)
        if opened is None:
            if self.reduced and "/__pycache__/" in full and full.endswith(".pyc"):
                raise Refused(errno.EACCES)  # the interpreter's own byte-code cache: refused quietly
            return self.outside(task, "open", f"abrir {full!r} para escrita")
        pfd, is_root = opened
        try:
            mode = mode & 0o7777 & ~task.umask
            base = flags & ~os.O_CLOEXEC
            created = False
            try:
                if tmpfile:
                    fd = os.open(".", base, mode, dir_fd=pfd)
                    created = True
                elif base & os.O_CREAT and not base & os.O_EXCL:
                    while True:
                        try:
                            fd = os.open(name, (base & ~os.O_CREAT) | os.O_NOFOLLOW, 0, dir_fd=pfd)
                            break
                        except FileNotFoundError:
                            pass
                        try:
                            fd = os.open(name, base | os.O_EXCL | os.O_NOFOLLOW, mode, dir_fd=pfd)
                            created = True
                            break
                        except FileExistsError:
                            continue
                else:
                    fd = os.open(name, base | os.O_NOFOLLOW, mode, dir_fd=pfd)
                    created = bool(base & os.O_CREAT)
            except OSError as exc:
                self._record(Event("open", ok=False, errno=_errno_name(exc.errno), path=full,
                                   dir=self.node_of(os.fstat(pfd)), name="" if tmpfile else name))
                raise Refused(exc.errno) from None
            st = os.fstat(fd)
            dnode = self.node_of(os.fstat(pfd))
            node = self.node_of(st, fresh=created)
            trunc = bool(base & os.O_TRUNC) and not created and stat.S_ISREG(st.st_mode)
            self._record(Event("open", node=node, dir=dnode, name="" if tmpfile else name, created=created,
                               trunc=trunc, kind2="file", path=full))
        finally:
            if not is_root:
                os.close(pfd)
        return self._install(nid, fd, flags)

    def _install(self, nid, fd, flags):
        try:
            request = bytearray(_ADDFD.pack(nid, ADDFD_FLAG_SEND, fd, 0, os.O_CLOEXEC if flags & os.O_CLOEXEC else 0))
            fcntl.ioctl(self.listener, NOTIF_ADDFD, request)
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                self.respond(nid, error=exc.errno)
        finally:
            os.close(fd)
        return None

    def _reopen(self, nid, task, where, flags):
        """open("/proc/self/fd/N", write flags): the same file, reopened. Done by us through the
        file's current name when that name is inside a root and still names the same inode."""
        _, pid, number = where
        if pid < 0 or number < 0:
            raise Refused(errno.ENOENT)
        dup = self.getfd(_Task(pid), number)
        try:
            st = os.fstat(dup)
            if not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
                return self.outside(task, "open", "reabrir por /proc/self/fd")
            try:
                name_now = os.readlink(f"/proc/self/fd/{dup}")
            except OSError:
                name_now = ""
        finally:
            os.close(dup)
        refuse = Refused(errno.EACCES, "open", "reabrir para escrita por /proc/self/fd um arquivo sem nome "
                                               "ou fora das pastas de trabalho: o corretor não acompanharia "
                                               "essa nova abertura")
        if not name_now.startswith("/") or name_now.endswith(" (deleted)") or stat.S_ISDIR(st.st_mode):
            raise refuse
        parent, name = os.path.split(name_now)
        opened = self.open_parent(parent)
        if opened is None:
            raise refuse
        pfd, is_root = opened
        try:
            base = flags & ~(os.O_CLOEXEC | os.O_CREAT | os.O_EXCL)
            try:
                fd = os.open(name, base | os.O_NOFOLLOW, dir_fd=pfd)
            except OSError as exc:
                raise Refused(exc.errno) from None
            now = os.fstat(fd)
            if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                os.close(fd)
                raise refuse  # renamed meanwhile: not the same file any more
            self._record(Event("open", node=self.node_of(now), dir=self.node_of(os.fstat(pfd)), name=name,
                               trunc=bool(base & os.O_TRUNC), kind2="file", path=name_now))
        finally:
            if not is_root:
                os.close(pfd)
        return self._install(nid, fd, flags)

    def _on_open(self, nid, task, a):
        return self._open_common(nid, task, AT_FDCWD, a[0], a[1], a[2])

    def _on_openat(self, nid, task, a):
        return self._open_common(nid, task, a[0], a[1], a[2], a[3])

    def _on_creat(self, nid, task, a):
        return self._open_common(nid, task, AT_FDCWD, a[0], os.O_CREAT | os.O_WRONLY | os.O_TRUNC, a[1])

    # writes --------------------------------------------------------------------------------------

    def _write_common(self, nid, task, fd, data_reader, offset=None, rwf=0):
        dup = self.getfd(task, fd)
        try:
            st = os.fstat(dup)
            key = (st.st_dev, st.st_ino)
            if key == self.pipe_key:
                data = data_reader()
                if not self.valid(nid):
                    return None
                self._output(data)
                return len(data)
            if key == self.chan_key:
                data = data_reader()
                if not self.valid(nid):
                    return None
                self._channel(data)
                return len(data)
            if not stat.S_ISREG(st.st_mode):
                if task.threads == 1:
                    return "continue"
                data = data_reader()[:4096]
                if not self.valid(nid):
                    return None
                _r, writable, _x = select.select([], [dup], [], 0)
                if writable:
                    return os.write(dup, data)
                self.pending.append((nid, os.dup(dup), data))
                return "pending"
            fl = fcntl.fcntl(dup, fcntl.F_GETFL)
            if fl & os.O_ACCMODE == os.O_RDONLY:
                raise Refused(errno.EBADF)
            tracked = st.st_dev in self.root_devs
            if not tracked and task.threads == 1:
                return "continue"
            data = data_reader()
            if not self.valid(nid):
                return None
            if tracked and self.data_bytes + len(data) > MAX_DATA:
                raise Stop("runaway", {"data": MAX_DATA})
            append = bool(fl & os.O_APPEND) or bool(rwf & RWF_APPEND)
            try:
                if append:
                    where = os.fstat(dup).st_size
                    written = os.write(dup, data) if offset is None else os.pwritev(dup, [data], -1, RWF_APPEND) if rwf & RWF_APPEND else os.pwrite(dup, data, offset)
                elif offset is None:
                    where = os.lseek(dup, 0, os.SEEK_CUR)
                    written = os.write(dup, data)
                else:
                    where = offset
                    written = os.pwrite(dup, data, offset)
            except OSError as exc:
                if tracked:
                    self._record(Event("write", ok=False, errno=_errno_name(exc.errno), node=self.node_of(st)))
                raise Refused(exc.errno) from None
            if tracked:
                self.data_bytes += written
                self._record(Event("write", node=self.node_of(st), offset=where, data=bytes(data[:written]),
                                   sync=bool(fl & os.O_DSYNC) or bool(rwf & (RWF_DSYNC | RWF_SYNC))))
            return written
        finally:
            os.close(dup)

    def _on_write(self, nid, task, a):
        return self._write_common(nid, task, a[0], lambda: self.read_mem(task.tid, a[1], min(a[2], MAX_DATA + 1)) or self._fault(a[2]))

    def _fault(self, size):
        if size:
            raise Refused(errno.EFAULT)
        return b""

    def _on_pwrite64(self, nid, task, a):
        if a[3] >= 1 << 63:
            raise Refused(errno.EINVAL)
        return self._write_common(nid, task, a[0], lambda: self.read_mem(task.tid, a[1], min(a[2], MAX_DATA + 1)) or self._fault(a[2]), offset=a[3])

    def _on_writev(self, nid, task, a):
        return self._write_common(nid, task, a[0], lambda: self.read_iov(task.tid, a[1], a[2]))

    def _on_pwritev(self, nid, task, a):
        if a[3] >= 1 << 63:
            raise Refused(errno.EINVAL)
        return self._write_common(nid, task, a[0], lambda: self.read_iov(task.tid, a[1], a[2]), offset=a[3])

    def _on_pwritev2(self, nid, task, a):
        offset = None if a[3] == (1 << 64) - 1 else a[3]
        return self._write_common(nid, task, a[0], lambda: self.read_iov(task.tid, a[1], a[2]), offset=offset, rwf=a[5])

    def _output(self, data: bytes):
        self.output_attempted += len(data)
        if len(self.output) < OUTPUT_KEEP * 4:
            self.output += data[:OUTPUT_KEEP * 4 - len(self.output)]
        if self.output_attempted > FLOOD_LIMIT:
            raise Stop("flood")

    def _channel(self, data: bytes):
        self.inbox += data
        while b"\n" in self.inbox:
            line, self.inbox = self.inbox.split(b"\n", 1)
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ValueError
                kind = request.get("t")
                if kind == "hello":
                    reply = self.setup
                elif kind == "end":
                    self.report = _clean_report(request)
                    self.end_seen = True
                    continue
                else:
                    reply = self.agent.handle(request)
            except (ValueError, RecursionError, TypeError):
                raise Stop("protocol") from None
            if self.agent.runaway:
                raise Stop("runaway", {"model_calls": self.agent.model_calls, "tool_calls": self.agent.tool_calls})
            self.outbox += (json.dumps(reply, ensure_ascii=False) + "\n").encode("utf-8")
            if len(self.outbox) > MAX_OUTBOX:
                raise Stop("protocol")
        if len(self.inbox) > MAX_LINE:
            raise Stop("protocol")

    # truncation ------------------------------------------------------------------------------

    def _on_ftruncate(self, nid, task, a):
        length = a[1]
        if length >= 1 << 63:
            raise Refused(errno.EINVAL)
        dup = self.getfd(task, a[0])
        try:
            st = os.fstat(dup)
            tracked = stat.S_ISREG(st.st_mode) and st.st_dev in self.root_devs
            if not tracked and task.threads == 1:
                return "continue"
            try:
                os.ftruncate(dup, length)
            except OSError as exc:
                if tracked:
                    self._record(Event("truncate", ok=False, errno=_errno_name(exc.errno), node=self.node_of(st), length=length))
                raise Refused(exc.errno) from None
            if tracked:
                self._record(Event("truncate", node=self.node_of(st), length=length))
            return 0
        finally:
            os.close(dup)

    def _on_fallocate(self, nid, task, a):
        mode = a[1] & _U32
        if mode != 0:
            raise Refused(errno.EOPNOTSUPP, "fallocate", "fallocate com modo diferente de 0 (furos, colapsos): "
                                                         "o corretor só acompanha o crescimento simples do arquivo")
        dup = self.getfd(task, a[0])
        try:
            st = os.fstat(dup)
            tracked = stat.S_ISREG(st.st_mode) and st.st_dev in self.root_devs
            if not tracked and task.threads == 1:
                return "continue"
            try:
                os.posix_fallocate(dup, a[2], a[3])
            except OSError as exc:
                raise Refused(exc.errno) from None
            after = os.fstat(dup).st_size
            if tracked and after != st.st_size:
                self._record(Event("truncate", node=self.node_of(st), length=after))
            return 0
        finally:
            os.close(dup)

    def _on_truncate(self, nid, task, a):
        path = self.read_path(task.tid, a[0])
        if not self.valid(nid):
            return None
        length = a[1]
        if length >= 1 << 63:
            raise Refused(errno.EINVAL)
        where = self.resolve(task, AT_FDCWD, path, True)
        if where[0] == "fd":
            raise Refused(errno.EACCES, "truncate", "truncar um arquivo por /proc/self/fd")
        parent, name = where
        full = parent.rstrip("/") + "/" + name
        opened = self.open_parent(parent)
        if opened is None:
            return self.outside(task, "truncate", f"truncar {full!r}")
        pfd, is_root = opened
        try:
            try:
                fd = os.open(name, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=pfd)
            except OSError as exc:
                raise Refused(exc.errno) from None
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    raise Refused(errno.EINVAL)
                try:
                    os.ftruncate(fd, length)
                except OSError as exc:
                    raise Refused(exc.errno) from None
                self._record(Event("truncate", node=self.node_of(st), length=length, path=full))
            finally:
                os.close(fd)
        finally:
            if not is_root:
                os.close(pfd)
        return 0

    # namespace changes -----------------------------------------------------------------------

    def _entry(self, task, dirfd, addr, follow=False):
        path = self.read_path(task.tid, addr)
        where = self.resolve(task, dirfd, path, follow)
        if where[0] == "fd":
            return where, None, None, ""
        parent, name = where
        if name in (".", ".."):
            raise Refused(errno.EBUSY if name == "." else errno.ENOTEMPTY)
        return where, parent, name, parent.rstrip("/") + "/" + name

    def _rename(self, nid, task, odir, oaddr, ndir, naddr, flags):
        flags &= _U32
        if flags & ~3:
            raise Refused(errno.EINVAL)  # RENAME_WHITEOUT and unknown flags
        _, p1, n1, full1 = self._entry(task, odir, oaddr)
        _, p2, n2, full2 = self._entry(task, ndir, naddr)
        if p1 is None or p2 is None:
            raise Refused(errno.EXDEV)
        if not self.valid(nid):
            return None
        a = self.open_parent(p1)
        b = self.open_parent(p2)
        if a is None or b is None:
            for fd in (a, b):
                if fd is not None and not fd[1]:
                    os.close(fd[0])
            return self.outside(task, "rename", f"renomear {full1!r} para {full2!r}")
        try:
            try:
                moved = os.lstat(n1, dir_fd=a[0])
            except OSError as exc:
                self._record(Event("rename", ok=False, errno=_errno_name(exc.errno), path=full1, path2=full2,
                                   dir=self.node_of(os.fstat(a[0])), name=n1, dir2=self.node_of(os.fstat(b[0])), name2=n2))
                raise Refused(exc.errno) from None
            try:
                there = os.lstat(n2, dir_fd=b[0])
            except OSError:
                there = None
            try:
                if flags:
                    rc = _libc.syscall(NR_RENAMEAT2, a[0], n1.encode("utf-8", "surrogateescape"), b[0],
                                       n2.encode("utf-8", "surrogateescape"), flags)
                    if rc < 0:
                        raise OSError(ctypes.get_errno(), "renameat2")
                else:
                    os.rename(n1, n2, src_dir_fd=a[0], dst_dir_fd=b[0])
            except OSError as exc:
                self._record(Event("rename", ok=False, errno=_errno_name(exc.errno), node=self.node_of(moved),
                                   dir=self.node_of(os.fstat(a[0])), name=n1, dir2=self.node_of(os.fstat(b[0])),
                                   name2=n2, flags=flags, path=full1, path2=full2))
                raise Refused(exc.errno) from None
            replaced = 0
            if there is not None and (there.st_dev, there.st_ino) != (moved.st_dev, moved.st_ino):
                replaced = self.node_of(there)
            self._record(Event("rename", node=self.node_of(moved), dir=self.node_of(os.fstat(a[0])), name=n1,
                               dir2=self.node_of(os.fstat(b[0])), name2=n2, replaced=replaced, flags=flags,
                               path=full1, path2=full2))
            return 0
        finally:
            for fd in (a, b):
                if not fd[1]:
                    os.close(fd[0])

    def _on_rename(self, nid, task, a):
        return self._rename(nid, task, AT_FDCWD, a[0], AT_FDCWD, a[1], 0)

    def _on_renameat(self, nid, task, a):
        return self._rename(nid, task, a[0], a[1], a[2], a[3], 0)

    def _on_renameat2(self, nid, task, a):
        return self._rename(nid, task, a[0], a[1], a[2], a[3], a[4])

    def _remove(self, nid, task, dirfd, addr, directory: bool):
        _, parent, name, full = self._entry(task, dirfd, addr)
        if parent is None:
            raise Refused(errno.EACCES)
        if not self.valid(nid):
            return None
        opened = self.open_parent(parent)
        kind = "rmdir" if directory else "unlink"
        if opened is None:
            return self.outside(task, kind, f"apagar {full!r}")
        pfd, is_root = opened
        try:
            dnode = self.node_of(os.fstat(pfd))
            try:
                st = os.lstat(name, dir_fd=pfd)
                if directory:
                    os.rmdir(name, dir_fd=pfd)
                else:
                    os.unlink(name, dir_fd=pfd)
            except OSError as exc:
                self._record(Event(kind, ok=False, errno=_errno_name(exc.errno), dir=dnode, name=name, path=full))
                raise Refused(exc.errno) from None
            self._record(Event(kind, node=self.node_of(st), dir=dnode, name=name, path=full))
            return 0
        finally:
            if not is_root:
                os.close(pfd)

    def _on_unlink(self, nid, task, a):
        return self._remove(nid, task, AT_FDCWD, a[0], False)

    def _on_rmdir(self, nid, task, a):
        return self._remove(nid, task, AT_FDCWD, a[0], True)

    def _on_unlinkat(self, nid, task, a):
        flags = a[2] & _U32
        if flags & ~AT_REMOVEDIR:
            raise Refused(errno.EINVAL)
        return self._remove(nid, task, a[0], a[1], bool(flags & AT_REMOVEDIR))

    def _mkdir(self, nid, task, dirfd, addr, mode):
        _, parent, name, full = self._entry(task, dirfd, addr)
        if parent is None:
            raise Refused(errno.EEXIST)
        if not self.valid(nid):
            return None
        opened = self.open_parent(parent)
        if opened is None:
            return self.outside(task, "mkdir", f"criar a pasta {full!r}")
        pfd, is_root = opened
        try:
            dnode = self.node_of(os.fstat(pfd))
            try:
                os.mkdir(name, (mode & 0o7777) & ~task.umask, dir_fd=pfd)
                st = os.lstat(name, dir_fd=pfd)
            except OSError as exc:
                self._record(Event("mkdir", ok=False, errno=_errno_name(exc.errno), dir=dnode, name=name, path=full, kind2="dir"))
                raise Refused(exc.errno) from None
            self._record(Event("mkdir", node=self.node_of(st, fresh=True), dir=dnode, name=name, path=full, kind2="dir"))
            return 0
        finally:
            if not is_root:
                os.close(pfd)

    def _on_mkdir(self, nid, task, a):
        return self._mkdir(nid, task, AT_FDCWD, a[0], a[1])

    def _on_mkdirat(self, nid, task, a):
        return self._mkdir(nid, task, a[0], a[1], a[2])

    def _link(self, nid, task, odir, oaddr, ndir, naddr, flags):
        flags &= _U32
        if flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH):
            raise Refused(errno.EINVAL)
        source_dup = None
        if flags & AT_EMPTY_PATH and not self.read_path(task.tid, oaddr):
            source_dup = self.getfd(task, odir)
            src = None
        else:
            src, sp, sn, sfull = self._entry(task, odir, oaddr, follow=bool(flags & AT_SYMLINK_FOLLOW))
            if src[0] == "fd":
                if src[1] < 0 or src[2] < 0:
                    raise Refused(errno.ENOENT)
                other = _Task(src[1])
                source_dup = self.getfd(other, src[2])
        try:
            _, p2, n2, full2 = self._entry(task, ndir, naddr)
            if p2 is None:
                raise Refused(errno.EEXIST)
            if not self.valid(nid):
                return None
            b = self.open_parent(p2)
            if b is None:
                return self.outside(task, "link", f"criar o link {full2!r}")
            try:
                dnode = self.node_of(os.fstat(b[0]))
                try:
                    if source_dup is not None:
                        st = os.fstat(source_dup)
                        if st.st_dev not in self.root_devs:
                            raise Refused(errno.EXDEV)
                        os.link(f"/proc/self/fd/{source_dup}", n2, dst_dir_fd=b[0], follow_symlinks=True)
                    else:
                        sp, sn = src
                        a = self.open_parent(sp)
                        if a is None:
                            return self.outside(task, "link", f"criar o link {full2!r}")
                        try:
                            st = os.lstat(sn, dir_fd=a[0])
                            os.link(sn, n2, src_dir_fd=a[0], dst_dir_fd=b[0], follow_symlinks=False)
                        finally:
                            if not a[1]:
                                os.close(a[0])
                except OSError as exc:
                    self._record(Event("link", ok=False, errno=_errno_name(exc.errno), dir=dnode, name=n2, path=full2))
                    raise Refused(exc.errno) from None
                self._record(Event("link", node=self.node_of(st), dir=dnode, name=n2, path=full2))
                return 0
            finally:
                if not b[1]:
                    os.close(b[0])
        finally:
            if source_dup is not None:
                os.close(source_dup)

    def _on_link(self, nid, task, a):
        return self._link(nid, task, AT_FDCWD, a[0], AT_FDCWD, a[1], 0)

    def _on_linkat(self, nid, task, a):
        return self._link(nid, task, a[0], a[1], a[2], a[3], a[4])

    def _symlink(self, nid, task, taddr, ndir, naddr):
        target = self.read_path(task.tid, taddr).decode("utf-8", "surrogateescape")
        _, p2, n2, full2 = self._entry(task, ndir, naddr)
        if p2 is None:
            raise Refused(errno.EEXIST)
        if not self.valid(nid):
            return None
        b = self.open_parent(p2)
        if b is None:
            return self.outside(task, "symlink", f"criar o link {full2!r}")
        try:
            dnode = self.node_of(os.fstat(b[0]))
            try:
                os.symlink(target, n2, dir_fd=b[0])
                st = os.lstat(n2, dir_fd=b[0])
            except OSError as exc:
                self._record(Event("symlink", ok=False, errno=_errno_name(exc.errno), dir=dnode, name=n2, path=full2,
                                   target=target, kind2="symlink"))
                raise Refused(exc.errno) from None
            self._record(Event("symlink", node=self.node_of(st, fresh=True), dir=dnode, name=n2, path=full2,
                               target=target, kind2="symlink"))
            return 0
        finally:
            if not b[1]:
                os.close(b[0])

    def _on_symlink(self, nid, task, a):
        return self._symlink(nid, task, a[0], AT_FDCWD, a[1])

    def _on_symlinkat(self, nid, task, a):
        return self._symlink(nid, task, a[0], a[1], a[2])

    # durability --------------------------------------------------------------------------------

    def _sync_fd(self, nid, task, fd, data_only):
        dup = self.getfd(task, fd)
        try:
            st = os.fstat(dup)
            try:
                (os.fdatasync if data_only else os.fsync)(dup)
            except OSError as exc:
                raise Refused(exc.errno) from None
            if st.st_dev in self.root_devs:
                self._record(Event("fsync", node=self.node_of(st), flags=1 if data_only else 0))
            return 0
        finally:
            os.close(dup)

    def _on_fsync(self, nid, task, a):
        return self._sync_fd(nid, task, a[0], False)

    def _on_fdatasync(self, nid, task, a):
        return self._sync_fd(nid, task, a[0], True)

    def _on_sync(self, nid, task, a):
        self._record(Event("sync"))
        return 0

    def _on_syncfs(self, nid, task, a):
        dup = self.getfd(task, a[0])
        os.close(dup)
        self._record(Event("sync"))
        return 0

    # refusals and checks ---------------------------------------------------------------------

    def _on_mmap(self, nid, task, a):
        prot, flags, fd = a[2] & _U32, a[3] & _U32, _s32(a[4])
        dup = self.getfd(task, fd)
        try:
            st = os.fstat(dup)
            writable = fcntl.fcntl(dup, fcntl.F_GETFL) & os.O_ACCMODE != os.O_RDONLY
        finally:
            os.close(dup)
        if stat.S_ISREG(st.st_mode) and writable:
            raise Refused(errno.EACCES, "mmap", "mmap compartilhado de um arquivo aberto para escrita: escritas "
                                                "assim não passam pelo sistema de arquivos e o corretor não as veria")
        if task.threads > 1 and not stat.S_ISCHR(st.st_mode) and prot & 2:
            raise Refused(errno.EACCES, "mmap", "mmap compartilhado com outras threads rodando")
        # Read-only descriptions can never be made writable by mprotect (the kernel refuses).
        return "continue"

    def _on_prctl(self, nid, task, a):
        raise Refused(errno.EPERM, "prctl", "instalar outro filtro seccomp (prctl): ele tiraria do corretor a visão das chamadas")

    def _signal_target(self, task, pid: int) -> bool:
        pid = _s32(pid)
        if pid == -1:
            return False
        if pid == 0:
            return True
        target = abs(pid)
        if target in (1, self.self_pid, self.self_pgid):
            return False
        if not self.reduced:
            return True
        if pid < 0:
            return target == self.child_pgid
        try:
            with open(f"/proc/{target}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            return int(fields[2]) == self.child_pgid
        except (OSError, IndexError, ValueError):
            return False

    def _on_kill(self, nid, task, a):
        return "continue" if self._signal_target(task, a[0]) else self._deny_signal()

    def _on_tkill(self, nid, task, a):
        return "continue" if self._signal_target(task, a[0]) and _s32(a[0]) > 0 else self._deny_signal()

    def _on_tgkill(self, nid, task, a):
        return "continue" if self._signal_target(task, a[0]) and _s32(a[0]) > 0 else self._deny_signal()

    def _on_pidfd_open(self, nid, task, a):
        return "continue" if _s32(a[0]) > 0 and self._signal_target(task, a[0]) else self._deny_signal()

    def _deny_signal(self):
        raise Refused(errno.EPERM)

    def _metadata(self, nid, task, a, name):
        """Reduced mode: chmod/chown/utime/xattr changes only inside the roots."""
        fd_based = name in ("fchmod", "fchown", "fsetxattr", "fremovexattr")
        if fd_based:
            dup = self.getfd(task, a[0])
            try:
                st = os.fstat(dup)
            finally:
                os.close(dup)
            if st.st_dev in self.root_devs and (st.st_dev, st.st_ino) in self.nodes:
                return "continue" if task.threads == 1 else self._metadata_refuse(name)
            return self._metadata_refuse(name)
        if name in ("chmod", "chown", "lchown", "utime", "utimes", "setxattr", "lsetxattr", "removexattr", "lremovexattr"):
            dirfd, addr = AT_FDCWD, a[0]
        else:
            dirfd, addr = a[0], a[1]
        if addr == 0:  # utimensat(fd, NULL, ...): the descriptor itself
            dup = self.getfd(task, dirfd)
            try:
                st = os.fstat(dup)
            finally:
                os.close(dup)
            ok = (st.st_dev, st.st_ino) in self.nodes
            return "continue" if ok and task.threads == 1 else self._metadata_refuse(name)
        path = self.read_path(task.tid, addr)
        where = self.resolve(task, dirfd, path, False)
        if where[0] != "fd" and self.root_for(where[0]) is not None and task.threads == 1:
            return "continue"
        return self._metadata_refuse(name)

    def _metadata_refuse(self, name):
        raise Refused(errno.EACCES, name, f"{name} fora das pastas de trabalho do exercício")


def _make_refusal(name, message):
    def handler(self, nid, task, a):
        raise Refused(errno.EPERM if name not in ("io_uring_setup",) else errno.EPERM, name, message)
    return handler


for _name, _message in REFUSED.items():
    setattr(Supervisor, "_on_" + _name, _make_refusal(_name, f"{_message}: recusado pelo corretor"))
for _name in METADATA:
    setattr(Supervisor, "_on_" + _name, lambda self, nid, task, a, _n=_name: self._metadata(nid, task, a, _n))


def _clean_report(raw: dict) -> dict:
    out = {}
    for key in ("kind", "phase", "exc_type", "exc_text", "lineno", "frames", "syntax"):
        if key in raw:
            out[key] = raw[key]
    text = json.dumps(out)
    return out if len(text) < 100_000 else {"kind": str(out.get("kind"))[:20]}


NR_PIDFD_GETFD = NR_OPENAT2 = NR_RENAMEAT2 = NR_SECCOMP = -1


def _init_numbers():
    global NR_PIDFD_GETFD, NR_OPENAT2, NR_RENAMEAT2, NR_SECCOMP
    NR_PIDFD_GETFD = syscall_nr("pidfd_getfd")
    NR_OPENAT2 = syscall_nr("openat2")
    NR_RENAMEAT2 = syscall_nr("renameat2")
    NR_SECCOMP = syscall_nr("seccomp")


_init_numbers()


# --- running one submission ------------------------------------------------------------------


def _child(python, env, work, limits, out_w, chan, reduced):
    """In the forked child: confine, install the filter, hand the listener over, exec the runner."""
    try:
        import resource

        os.setsid()
        # The supervisor runs with umask 0 (it applies the student's by hand); the student gets a
        # student's machine's usual one, or os.umask() and the modes it creates would betray a grader.
        os.umask(0o022)
        for name, value in (limits or {}).items():
            try:
                resource.setrlimit(getattr(resource, name), (value, value))
            except (ValueError, OSError, AttributeError):
                pass
        os.chdir(work)
        null = os.open("/dev/null", os.O_RDONLY)
        for fd in (out_w, chan, null):
            if fd <= 3:  # move them out of the way of 0-3 first
                raise OSError("descritores inesperados")
        os.dup2(null, 0)
        os.dup2(out_w, 1)
        os.dup2(out_w, 2)
        os.dup2(chan, 3)
        os.closerange(4, 1 << 16)
        if os.getuid() == 0:
            # Root without a sandbox (reduced mode): no capabilities, not even after exec.
            for cap in range(64):
                _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
            header = struct.pack("<Ii", 0x20080522, 0)
            _libc.capset(header, bytes(24))
        if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            os._exit(120)
        _buffer, fprog = _filter(reduced)
        listener = _libc.syscall(NR_SECCOMP, SECCOMP_SET_MODE_FILTER,
                                 SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, fprog)
        if listener < 0:
            listener = _libc.syscall(NR_SECCOMP, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, fprog)
        if listener < 0:
            os._exit(121)
        sock = socket.socket(fileno=3)
        socket.send_fds(sock, [b"L"], [listener])
        sock.detach()
        os.close(listener)
        os.execve(python, [python, "-c", RUNNER_SOURCE], env)  # argv[0] locates the stdlib
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
               env: dict, limits: dict | None = None, timeout: float = 10.0, python: str = "/usr/bin/python3",
               reduced: bool = False, kill_all: bool = False) -> Trace:
    """One run of `job` under the tap. `work`, `tmp` (and `home`) are the roots; reduced=True refuses
    every mutation outside them (no sandbox around us); kill_all=True when we are alone in a PID
    namespace with the run (bwrap): at the end everything but us and init is killed."""
    roots = [("work", work), ("tmp", tmp)] + ([("home", home)] if home else [])
    sup = Supervisor(roots, reduced=reduced, source=source, filename=filename, job=job)
    root_list = sup.roots_out()
    trace = Trace(root_list)
    out_r, out_w = os.pipe()
    ours, theirs = socket.socketpair()
    out_w = _high_fd(out_w)
    theirs_fd = _high_fd(theirs.detach())
    sup.pipe_key = (os.fstat(out_w).st_dev, os.fstat(out_w).st_ino)
    st = os.fstat(theirs_fd)
    sup.chan_key = (st.st_dev, st.st_ino)
    deadline = time.monotonic() + timeout
    pid = os.fork()
    if pid == 0:
        _child(python, env, work, limits, out_w, theirs_fd, reduced)
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
            ours.setblocking(False)
            end, status = _loop(sup, pid, ours, out_r, deadline)
    except Stop as stop:
        end, limits_hit = stop.end, stop.limits
    except Exception:  # noqa: BLE001 - the tap failed: not the student's fault
        import traceback

        traceback.print_exc()
        end = "broken"
    finally:
        status = _kill_and_reap(pid, status, kill_all)
        for fd in [sup.listener, out_r] + list(sup.pidfds.values()) + [p[1] for p in sup.pending]:
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        ours.close()
    if end == "exit" and status is not None and os.WIFSIGNALED(status):
        end, trace.code = "signal", os.WTERMSIG(status)
    elif end == "exit" and status is not None:
        trace.code = os.WEXITSTATUS(status)
    trace.end = end
    trace.limits = limits_hit
    trace.events = sup.events
    trace.report = sup.report
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


def _loop(sup: Supervisor, pid: int, chan: socket.socket, out_r: int, deadline: float):
    poller = select.poll()
    poller.register(sup.listener, select.POLLIN)
    poller.register(chan.fileno(), select.POLLIN)
    poller.register(out_r, select.POLLIN)
    pidfd = os.pidfd_open(pid)
    poller.register(pidfd, select.POLLIN)
    buffer = bytearray(_NOTIF.size)
    chan_fd = chan.fileno()
    out_registered = False
    pending_fds: set = set()
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout", None
            for event_fd, mask in poller.poll(min(left, 1.0) * 1000):
                if event_fd == sup.listener:
                    if mask & select.POLLIN:
                        buffer[:] = bytes(_NOTIF.size)
                        try:
                            fcntl.ioctl(sup.listener, NOTIF_RECV, buffer, True)
                        except OSError as exc:
                            if exc.errno in (errno.ENOENT, errno.EINTR):
                                continue
                            raise
                        sup.handle(bytes(buffer))
                elif event_fd == chan_fd:
                    if mask & select.POLLOUT and sup.outbox:
                        try:
                            sent = os.write(chan_fd, sup.outbox)
                            sup.outbox = sup.outbox[sent:]
                        except BlockingIOError:
                            pass
                        except OSError:
                            sup.outbox = b""
                    if mask & select.POLLIN:
                        try:
                            data = os.read(chan_fd, 65536)
                        except BlockingIOError:
                            data = None
                        if data:
                            raise Stop("protocol")  # requests come only through write(), which we emulate
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
                    return "exit", status
                elif event_fd in pending_fds:
                    pass
            # Replies to send, and writes deferred until their pipe had room.
            if sup.outbox:
                try:
                    sent = os.write(chan_fd, sup.outbox)
                    sup.outbox = sup.outbox[sent:]
                except BlockingIOError:
                    pass
                except OSError:
                    sup.outbox = b""
            if sup.outbox and not out_registered:
                poller.modify(chan_fd, select.POLLIN | select.POLLOUT)
                out_registered = True
            elif not sup.outbox and out_registered:
                poller.modify(chan_fd, select.POLLIN)
                out_registered = False
            if sup.pending:
                _retry_pending(sup, poller, pending_fds)
            status = _reap_orphans(pid)
            if status is not None:
                return "exit", status
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


def _reap_orphans(root_pid):
    """Reap what came back to us; the root's status if it was among them."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return None
        if pid == 0:
            return None
        if pid == root_pid:
            return status


def _kill_and_reap(pid, status, kill_all):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    if kill_all:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
    if status is None:
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    deadline = time.monotonic() + 2
    while True:
        try:
            got, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if got == 0:
            if time.monotonic() > deadline:
                break
            if kill_all:
                try:
                    os.kill(-1, signal.SIGKILL)
                except OSError:
                    pass
            else:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.002)
    return status


# --- the server inside the sandbox -----------------------------------------------------------


def wipe(roots: list[str], keep: list[str]):
    """Empty every root (and put back the folders in `keep`): nothing of a run survives it."""
    import shutil

    def retry(function, target, _exc):
        try:  # a run may leave folders without permissions; they are ours, so open them back up
            os.chmod(os.path.dirname(target), 0o700)
            os.chmod(target, 0o700)
            function(target)
        except OSError:
            pass

    for root in roots:
        try:
            os.chmod(root, 0o700 if root not in keep else 0o755)
        except OSError:
            pass
        try:
            names = os.listdir(root)
        except OSError:
            continue
        for name in names:
            path = os.path.join(root, name)
            if path in roots:
                continue
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, onerror=retry)
            else:
                try:
                    os.unlink(path)
                except OSError:
                    pass
    for path in keep:
        os.makedirs(path, exist_ok=True)
        os.chmod(path, 0o755)


def serve():
    """The supervisor as a small server (one per sandbox), driven through a socket on stdin.

    {"cmd": "init", "work", "tmp", "home", "modes": {root: mode}, "env", "python", "reduced",
     "kill_all", "limits"}                                  -> {"ok": true}
    {"cmd": "run", "source", "filename", "job", "timeout"}  -> the Trace as JSON (ops.to_json)
    Every run starts from empty roots and ends with every process it started dead.
    """
    from .ops import to_json

    prepare_supervisor()
    control = socket.socket(fileno=0)
    reader = control.makefile("rb")
    config = None
    while True:
        line = reader.readline(1 << 26)
        if not line:
            break
        command = json.loads(line)
        if command.get("cmd") == "init":
            config = command
            reply = json.dumps({"ok": True})
        elif command.get("cmd") == "run" and config is not None:
            roots = [p for p in (config.get("home"), config["work"], config["tmp"]) if p]
            wipe(roots, [p for p in (config.get("home"), config["work"]) if p])
            os.chmod(config["tmp"], 0o1777)
            trace = run_traced(command["source"], command["filename"], command["job"],
                               work=config["work"], tmp=config["tmp"], home=config.get("home"),
                               env=config["env"], limits=config.get("limits"), timeout=float(command["timeout"]),
                               python=config["python"], reduced=bool(config.get("reduced")),
                               kill_all=bool(config.get("kill_all")))
            wipe(roots, [p for p in (config.get("home"), config["work"]) if p])
            reply = to_json(trace)
        else:
            reply = json.dumps({"error": "comando"})
        control.sendall((reply + "\n").encode("utf-8"))
