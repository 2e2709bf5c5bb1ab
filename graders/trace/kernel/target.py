"""Reading the traced process from outside: its status, memory, descriptors (through pidfds) and
the paths it names, resolved as the kernel would resolve them for it."""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import struct

from ..ops import MAX_DATA
from .errors import Refused
from .linux import AT_FDCWD, Iovec, libc, s32
from .seccomp import NR_PIDFD_GETFD


class Task:
    """What one notification is about: the calling thread, its process, its descriptors. Its
    /proc/<tid>/status is read only when a handler first asks for tgid, umask or threads: most
    notifications (an interpreter's start, a path looked at) never need it."""

    __slots__ = ("tid", "_values")

    def __init__(self, tid):
        self.tid = tid
        self._values = None

    def _load(self) -> tuple:
        if self._values is None:
            try:
                fd = os.open(f"/proc/{self.tid}/status", os.O_RDONLY)
                try:
                    text = os.read(fd, 8192)
                finally:
                    os.close(fd)
            except OSError:
                raise Refused(errno.ESRCH) from None
            self._values = (int(_field(text, b"Tgid") or self.tid), int(_field(text, b"Umask") or b"0022", 8),
                            int(_field(text, b"Threads") or b"1"))
        return self._values

    @property
    def tgid(self) -> int:
        return self._load()[0]

    @property
    def umask(self) -> int:
        return self._load()[1]

    @property
    def threads(self) -> int:
        return self._load()[2]


def _field(text: bytes, key: bytes) -> bytes | None:
    """The value of one "Key:\tvalue" line of a /proc status file."""
    at = text.find(b"\n" + key + b":")
    if at < 0:
        return None
    start = at + len(key) + 2
    end = text.find(b"\n", start)
    return text[start:end if end >= 0 else None].strip()


PIDFD_THREAD = os.O_EXCL  # Linux 6.9+: a pidfd for one thread, not its thread group


def _thread_getfd(tid: int, target_fd: int) -> int | None:
    """The descriptor through the calling thread itself: once a process's first thread has exited
    (the others still running), the thread-group pidfd reaches no file table (ESRCH). None if the
    kernel has no thread pidfds or the descriptor is not open."""
    try:
        pidfd = os.pidfd_open(tid, PIDFD_THREAD)
    except OSError:
        return None
    try:
        fd = libc.syscall(NR_PIDFD_GETFD, pidfd, target_fd, 0)
    finally:
        os.close(pidfd)
    if fd < 0:
        return None
    os.set_inheritable(fd, False)
    return fd


class TargetAccess:
    """Supervisor mixin: the target as seen from the supervisor (self.pidfds caches its pidfds)."""

    def pidfd(self, task: Task) -> int:
        fd = self.pidfds.get(task.tgid)
        if fd is None:
            try:
                fd = os.pidfd_open(task.tgid)
            except OSError:
                raise Refused(errno.ESRCH) from None
            self.pidfds[task.tgid] = fd
        return fd

    def getfd(self, task: Task, target_fd: int) -> int:
        """Our duplicate of the target's descriptor (the same open file description)."""
        target_fd = s32(target_fd)
        if target_fd < 0:
            raise Refused(errno.EBADF)
        for attempt in range(2):
            fd = libc.syscall(NR_PIDFD_GETFD, self.pidfd(task), target_fd, 0)
            if fd >= 0:
                os.set_inheritable(fd, False)
                return fd
            err = ctypes.get_errno()
            if err in (errno.ESRCH, errno.EBADF) and task.tid != task.tgid:
                fd = _thread_getfd(task.tid, target_fd)
                if fd is not None:
                    return fd
            if err == errno.ESRCH and attempt == 0:  # a stale pidfd (that process number was reused)
                os.close(self.pidfds.pop(task.tgid))
                continue
            raise Refused(errno.EBADF if err == errno.EBADF else err)
        raise Refused(errno.ESRCH)

    def _scratch(self, size: int) -> int:
        """The address of a buffer of ours of at least `size` bytes, kept between calls (a fresh
        ctypes buffer for every read of the target's memory cost more than the read itself)."""
        buffer = getattr(self, "_scratch_buffer", None)
        if buffer is None or len(buffer) < size:
            buffer = self._scratch_buffer = ctypes.create_string_buffer(max(size, 1 << 16))
        return ctypes.addressof(buffer)

    def read_mem(self, tid, address, size) -> bytes:
        if size <= 0:
            return b""
        base = self._scratch(size)
        local = Iovec(base, size)
        remote = Iovec(address, size)
        got = libc.process_vm_readv(tid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
        if got == size:
            return ctypes.string_at(base, size)
        # Part of it unreadable: page by page, up to the first bad page (a short write then).
        chunks = []
        page = 4096
        while size > 0:
            step = min(size, page - address % page)
            local = Iovec(base, step)
            remote = Iovec(address, step)
            got = libc.process_vm_readv(tid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
            if got <= 0:
                break
            chunks.append(ctypes.string_at(base, got))
            if got < step:
                break
            address += step
            size -= step
        return b"".join(chunks)

    def write_mem(self, tid, address, data: bytes):
        """Our answer into the caller's buffer (a stat, a link's text): all of it, or EFAULT."""
        if not data:
            return
        buffer = ctypes.create_string_buffer(data, len(data))
        local, remote = Iovec(ctypes.addressof(buffer), len(data)), Iovec(address, len(data))
        if libc.process_vm_writev(tid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) != len(data):
            raise Refused(errno.EFAULT)

    def read_path(self, tid, address) -> bytes:
        if address == 0:
            raise Refused(errno.EFAULT)
        data = b""
        while len(data) < 4096:
            # Most paths are short: a first small read, then the rest of each page (never across a
            # page boundary in one read, so a path that ends before an unmapped page is still read).
            room = 4096 - address % 4096
            step = min(room, 256) if not data else room
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
        count = s32(count)
        if count < 0 or count > 1024:
            raise Refused(errno.EINVAL)
        raw = self.read_mem(tid, address, 16 * count)
        if len(raw) < 16 * count:
            raise Refused(errno.EFAULT)
        parts, total = [], 0
        for i in range(count):
            base, length = struct.unpack_from("<QQ", raw, 16 * i)
            length = min(length, getattr(self, "max_data", MAX_DATA) + 1 - total)
            chunk = self.read_mem(tid, base, length)
            parts.append(chunk)
            total += len(chunk)
            if len(chunk) < length or total > getattr(self, "max_data", MAX_DATA):
                break
        if count and not total and any(struct.unpack_from("<QQ", raw, 16 * i)[1] for i in range(count)):
            raise Refused(errno.EFAULT)
        return b"".join(parts)

    def base_dir(self, task: Task, dirfd: int, path: bytes) -> str:
        if path.startswith(b"/"):
            return "/"
        dirfd = s32(dirfd)
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

    def _tmp_exempt(self, rest: list) -> bool:
        """Whether the components after /tmp lead into one of the run's own folders by its real name
        (the temp folder itself, as TMPDIR names it; all of them where the machine has no /dev/shm)."""
        return any(rest[:len(tail)] == tail for tail in getattr(self, "tmp_tails", ()))

    def _shm_exempt(self, rest: list) -> bool:
        """Whether the components after /dev/shm lead to (or into) one of the run's own folders by its
        real name, where the machine's /dev/shm holds the sandbox's folder."""
        return bool(rest) and any(rest[:len(tail)] == tail[:len(rest)] for tail in getattr(self, "shm_tails", ()))

    def resolve(self, task: Task, dirfd: int, path: bytes, follow: bool):
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
        # Reduced mode: the run's own temp folder stands in for the machine's /tmp (looks.py).
        # tmp_hit: a name was looked up in it in place of the machine's /tmp, where the kernel, given
        # the same path, would have looked in the machine's.
        private = getattr(self, "tmp_private", None)
        self.tmp_hit = mapped = False
        if private and current[:1] == ["tmp"] and not self._tmp_exempt(current[1:]):
            current = private + current[1:]  # a cwd or folder descriptor in the machine's /tmp
            mapped = True
        shm = getattr(self, "shm_private", None)
        if shm and current[:2] == ["dev", "shm"] and not self._shm_exempt(current[2:]):
            current = shm + current[2:]  # likewise in the machine's /dev/shm
        links = 0
        while parts:
            comp = parts.pop(0)
            last = not parts
            if mapped and current[:len(private)] == private and comp != "..":
                self.tmp_hit = True
            if comp == ".":
                if last:
                    return "/" + "/".join(current[:-1]) if current else "/", current[-1] if current else "."
                continue
            if shm and comp == "shm" and current == ["dev"] and not self._shm_exempt(parts):
                current = list(shm)  # the run's own /dev/shm (reduced mode)
                if last:
                    return "/" + "/".join(current[:-1]), current[-1]
                continue
            if private and comp == "tmp" and not current and not self._tmp_exempt(parts):
                current, mapped = list(private), True
                if last:
                    self.tmp_hit = True
                    return "/" + "/".join(current[:-1]), current[-1]
                continue
            if comp == "..":
                if private and current == private:
                    current = []  # the parent of the run's /tmp is /, as under bubblewrap
                elif shm and current == list(shm):
                    current = ["dev"]  # and the parent of its /dev/shm is /dev
                elif current:
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

