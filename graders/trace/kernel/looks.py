"""The calls that only look at a path, performed by the supervisor through its fenced look thread
(lookthread.py) in reduced mode once the student's code has started: read-only and O_PATH opens,
stat, lstat, statx, access, readlink, statfs and extended-attribute reads.

The path is copied from the caller's memory once; the answer is computed from that copy and never
handed back to the kernel (SECCOMP_USER_NOTIF_FLAG_CONTINUE would make it read the path again, from
memory another task may share and change meanwhile). The copy is resolved as the kernel would resolve
it for the caller (target.resolve: /proc/self is the caller, /tmp the run's own temp folder, a
/proc/<pid>/fd/<n> link that descriptor), then opened from "/" with openat2 refusing every symlink
(resolve already followed them: a folder swapped for a link meanwhile gives ELOOP, never another
place), by a thread fenced as the run is, so Landlock and the file modes decide what the run may
read exactly as they decide its own calls. An absolute path outside /tmp, with no "." or ".." in
it, is first opened as it is with no link allowed: with no link on it, it names the same thing for
the caller and for us; with one, that open fails with ELOOP and the path is resolved. Such a path is
even looked up by the supervisor's main thread, sparing the hand-off, where that thread's answer
cannot differ from the fenced one (Looks._here): a query outside /proc, or a read inside the run's
own folders, when the supervisor runs as the run's user with no capability.

Limits: an O_PATH open gives the run a descriptor opened for reading (the kernel installs no O_PATH
descriptor for a supervisor), so it fails where the file cannot be read; a named pipe is opened
without waiting for a writer. chdir is answered on its registers alone (the kernel runs it): the
supervisor cannot move another process's working folder, and resolve maps a working folder lying
in the machine's /tmp to the run's for every later call.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import stat

from .errors import Refused
from .linux import AT_EMPTY_PATH, AT_FDCWD, O_PATH, RESOLVE_NO_MAGICLINKS, RESOLVE_NO_SYMLINKS
from .linux import OpenHow, U32, libc, s32
from .reads import SIGN_PREFIXES
from .seccomp import LOOKS, NR_OPENAT2, syscall_nr
from .target import Task

AT_SYMLINK_NOFOLLOW, AT_EACCESS = 0x100, 0x200
STAT_SIZE = {"x86_64": 144, "aarch64": 128}.get(platform.machine(), 144)
STATX_SIZE, STATFS_SIZE = 256, 120
NR_NEWFSTATAT = syscall_nr("newfstatat") or syscall_nr("fstatat64")
NR_STATX, NR_FSTATFS, NR_FACCESSAT2 = syscall_nr("statx"), syscall_nr("fstatfs"), syscall_nr("faccessat2")
XATTR_SIZE_MAX = 65536
# The calls that look at a path: name -> (dirfd argument or None, path argument, flags argument or
# None, follows a final symlink unless the flags say otherwise).
QUERIES = {
    "stat": (None, 0, None, True), "lstat": (None, 0, None, False), "newfstatat": (0, 1, 3, True),
    "statx": (0, 1, 2, True), "access": (None, 0, None, True), "faccessat": (0, 1, None, True),
    "faccessat2": (0, 1, 3, True), "readlink": (None, 0, None, False), "readlinkat": (0, 1, None, False),
    "statfs": (None, 0, None, True), "chdir": (None, 0, None, True), "getxattr": (None, 0, None, True),
    "lgetxattr": (None, 0, None, False), "listxattr": (None, 0, None, True), "llistxattr": (None, 0, None, False),
}
assert set(QUERIES) == set(LOOKS)
# The flags an open(2) honours and openat2 accepts (openat2 refuses unknown bits where open ignores them).
OPEN_FLAGS = (os.O_ACCMODE | os.O_NONBLOCK | os.O_APPEND | os.O_DSYNC | os.O_SYNC | os.O_DIRECT | os.O_LARGEFILE
              | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NOATIME | os.O_NOCTTY | os.O_EXCL | os.O_ASYNC)
NO_LINKS = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
SELF_LINKS = (b"/proc/self", b"/proc/thread-self")


class Looks:
    """Supervisor mixin: self.looker (lookthread.LookThread in a reduced-mode run), self.reduced,
    self.code_started, self.root_names (the roots' paths, bytes)."""

    def looks_here(self) -> bool:
        """Whether look-only calls are ours to perform: reduced mode once the student's code started
        (bubblewrap mode lets read-only opens through on their flags and does not notify the rest)."""
        return self.reduced and self.code_started

    # entry points (main thread) ------------------------------------------------------------------

    def look_open(self, nid, task: Task, dirfd, addr, flags):
        """A read-only or O_PATH open: None once our descriptor is installed in the caller."""
        flags &= U32
        if flags & O_PATH:
            # The kernel installs no O_PATH descriptor for a supervisor (SECCOMP_IOCTL_NOTIF_ADDFD takes
            # files it can read or write): the run gets one opened for reading, which does the same.
            flags = os.O_RDONLY | (flags & (os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC))
        raw = self.read_path(task.tid, addr)
        full = self._here(task, dirfd, raw, True)
        if full is not None:
            # A file of the run's own folders: opened here, without the hand-off (_here says why).
            fd = _openat2(full, (flags & OPEN_FLAGS) | os.O_NONBLOCK)
            if fd >= 0:
                return self._opened(nid, fd, flags)
            if ctypes.get_errno() != errno.ELOOP:
                raise Refused(ctypes.get_errno())
        return self.looker.call(self._look_open, nid, task, dirfd, raw, flags)

    def _query(self, nid, task, a, name):
        if name == "chdir" or not self.looks_here():
            # Decided on registers alone: the interpreter's own start, or a chdir (this module's
            # docstring says why it is the kernel's).
            return "continue"
        dirpos, pathpos, flagpos, follow = QUERIES[name]
        flags = a[flagpos] & U32 if flagpos is not None else 0
        if flags & AT_SYMLINK_NOFOLLOW:
            follow = False
        raw = self.read_path(task.tid, a[pathpos])
        dirfd = a[dirpos] if dirpos is not None else AT_FDCWD
        full = self._here(task, dirfd, raw, False)
        if full is not None:
            # Answered here, without the hand-off: Landlock does not fence these calls (stat, access,
            # readlink, statfs, xattr reads; O_PATH opens are not checked either) outside /proc, and
            # this thread has the run's uid, groups and no capability, so the file modes give the
            # same answer. Measured: ~65 us a stat here against ~185 us through the thread.
            fd = _openat2(full, O_PATH | (0 if follow else os.O_NOFOLLOW))
            if fd >= 0:
                try:
                    return self._answer(task, a, name, fd, flags) if self.valid(nid) else None
                finally:
                    os.close(fd)
            if ctypes.get_errno() != errno.ELOOP:
                raise Refused(ctypes.get_errno())
        return self.looker.call(self._look_query, nid, task, a, name, dirfd, raw, flags, follow)

    def _here(self, task, dirfd, raw: bytes, reads: bool) -> bytes | None:
        """The absolute path this (main) thread may look up itself for the caller, or None for the look
        thread: only where this thread has the run's rights (looker.same_rights), the path needs no
        resolution once no link lies on it (_plain), is outside /proc (Landlock scopes /proc/<pid>
        to the run's own processes) and, for a read (`reads`), lies in a root, where the run's
        Landlock ruleset grants every right (the file modes alone decide there, as here)."""
        if not self.looker.same_rights or not raw:
            return None
        if raw.startswith(b"/"):
            full = raw
        elif s32(dirfd) == AT_FDCWD:
            try:
                base = os.readlink(f"/proc/{task.tid}/cwd")
            except OSError:
                return None
            if not base.startswith("/") or base.endswith(" (deleted)"):
                return None
            full = base.rstrip("/").encode("utf-8", "surrogateescape") + b"/" + raw
        else:
            return None
        if not _plain(full) or full.lstrip(b"/").startswith(b"proc"):
            return None
        if reads and not any(full == r or full.startswith(r + b"/") for r in self.root_names):
            return None
        return full

    # in the look thread -------------------------------------------------------------------------

    def _look_open(self, nid, task, dirfd, raw: bytes, flags):
        fd = self.look_fd(task, dirfd, raw, (flags & OPEN_FLAGS) | os.O_NONBLOCK, not flags & os.O_NOFOLLOW,
                          note=True)
        return self._opened(nid, fd, flags)

    def _opened(self, nid, fd: int, flags: int):
        """Our descriptor handed to the caller (SECCOMP_IOCTL_NOTIF_ADDFD)."""
        if not self.valid(nid):
            os.close(fd)
            return None
        if not flags & os.O_NONBLOCK:
            # Opened without waiting (a named pipe with no writer would stop the supervisor): the
            # descriptor the run gets blocks as it asked.
            os.set_blocking(fd, True)
        return self._install(nid, fd, flags)

    def _look_query(self, nid, task, a, name, dirfd, raw: bytes, flags: int, follow: bool):
        if not raw and flags & AT_EMPTY_PATH:
            # faccessat2(fd, "", AT_EMPTY_PATH): the descriptor itself (the filter lets the AT_EMPTY_PATH
            # forms of newfstatat and statx through unnotified).
            if s32(dirfd) == AT_FDCWD:
                raw = b"."
            else:
                fd = self.getfd(task, dirfd)
                try:
                    return self._answer(task, a, name, fd, flags)
                finally:
                    os.close(fd)
        if not follow and raw in SELF_LINKS:
            return self._self_link(task, a, name, raw)
        fd = self.look_fd(task, dirfd, raw, O_PATH, follow)
        try:
            if not self.valid(nid):
                return None
            return self._answer(task, a, name, fd, flags)
        finally:
            os.close(fd)

    def _self_link(self, task, a, name, raw: bytes):
        """lstat or readlink of /proc/self or /proc/thread-self: the caller's link, not ours (resolve
        follows these two links even as a last component, to the caller's own folder)."""
        if name in ("readlink", "readlinkat"):
            text = str(task.tgid).encode()
            if b"thread-self" in raw:
                text += b"/task/%d" % task.tid
            buf, size = (a[1], a[2]) if name == "readlink" else (a[2], a[3])
            size &= U32
            if size == 0 or size >> 31:
                raise Refused(errno.EINVAL)
            self.write_mem(task.tid, buf, text[:size])
            return len(text[:size])
        fd = _openat2(raw, O_PATH | os.O_NOFOLLOW)  # the same link for every process
        if fd < 0:
            raise Refused(ctypes.get_errno())
        try:
            return self._answer(task, a, name, fd, 0)
        finally:
            os.close(fd)

    def look_fd(self, task, dirfd, raw: bytes, how: int, follow: bool, note: bool = False) -> int:
        """Our descriptor of what `raw` names for the caller, opened with `how` (open flags)."""
        if not raw:
            raise Refused(errno.ENOENT)
        nofollow = 0 if follow else os.O_NOFOLLOW
        lead = b"/" + raw.lstrip(b"/")
        if _plain(raw):
            # Opened as written when no link lies on it: then nothing on it needs mapping (/proc/self,
            # /dev/fd, a link of the run's into /tmp are links, and fail with ELOOP here).
            fd = _openat2(raw, how | nofollow)
            if fd >= 0:
                if note and lead.startswith(SIGN_PREFIXES):
                    self.note_sign(task, lead.decode("utf-8", "surrogateescape"))
                return fd
            err = ctypes.get_errno()
            if err != errno.ELOOP:
                raise Refused(err)
        where = self.resolve(task, dirfd, raw, follow)
        if where[0] == "fd":
            return self._reopen_look(task, where, how)
        full = where[0].rstrip("/") + "/" + where[1]
        if note:
            self.note_sign(task, full)
        if raw.endswith(b"/"):
            how |= os.O_DIRECTORY  # resolve drops a trailing slash; the kernel wants a folder there
        fd = _openat2(full.encode("utf-8", "surrogateescape"), how | nofollow)
        if fd < 0:
            raise Refused(ctypes.get_errno())
        return fd

    def _reopen_look(self, task, where, how: int) -> int:
        """/proc/<pid>/fd/<n> followed: that descriptor's file, opened anew through our duplicate,
        as the kernel reopens it (with this thread's fence deciding, as the run's would)."""
        _, pid, number = where
        if pid < 0 or number < 0:
            raise Refused(errno.ENOENT)
        if pid != task.tgid and not self._signal_target(task, pid):
            raise Refused(errno.EACCES)  # another process's descriptors: Landlock's answer to the run
        try:
            dup = self.getfd(Task(pid), number)
        except Refused as exc:
            raise Refused(errno.EACCES if exc.number == errno.EPERM else exc.number) from None
        try:
            return os.open(f"/proc/self/fd/{dup}", how | os.O_CLOEXEC)
        except OSError as exc:
            raise Refused(exc.errno or errno.EACCES) from None
        finally:
            os.close(dup)

    def _answer(self, task, a, name, fd, flags):
        """The call itself on our O_PATH descriptor, its output written into the caller's buffer."""
        if name in ("stat", "lstat", "newfstatat"):
            buf = a[2] if name == "newfstatat" else a[1]
            return self._to_target(task, buf, STAT_SIZE, lambda b: libc.syscall(
                NR_NEWFSTATAT, fd, b"", b, AT_EMPTY_PATH))
        if name == "statx":
            return self._to_target(task, a[4], STATX_SIZE, lambda b: libc.syscall(
                NR_STATX, fd, b"", AT_EMPTY_PATH | (flags & 0x6000), a[3] & U32, b))
        if name == "statfs":
            return self._to_target(task, a[1], STATFS_SIZE, lambda b: libc.syscall(NR_FSTATFS, fd, b))
        if name in ("access", "faccessat", "faccessat2"):
            mode = a[1] if name == "access" else a[2]
            rc = libc.syscall(NR_FACCESSAT2, fd, b"", mode & U32, AT_EMPTY_PATH | (flags & AT_EACCESS))
            if rc < 0:
                raise Refused(ctypes.get_errno())
            return 0
        if name in ("readlink", "readlinkat"):
            buf, size = (a[1], a[2]) if name == "readlink" else (a[2], a[3])
            size &= U32
            if size == 0 or size >> 31 or not stat.S_ISLNK(os.stat(fd).st_mode):
                raise Refused(errno.EINVAL)  # as readlink of a name that is not a link
            try:
                data = _readlink_fd(fd)[:size]
            except OSError as exc:
                raise Refused(exc.errno or errno.EINVAL) from None
            self.write_mem(task.tid, buf, data)
            return len(data)
        # getxattr, lgetxattr, listxattr, llistxattr: through our descriptor's /proc/self/fd link.
        getting = "get" in name
        if stat.S_ISLNK(os.stat(fd).st_mode):
            if getting:
                raise Refused(errno.ENODATA)  # a symlink holds no user attributes
            return 0
        where = f"/proc/self/fd/{fd}"
        try:
            if getting:
                attr = self.read_path(task.tid, a[1]).decode("utf-8", "surrogateescape")
                value = os.getxattr(where, attr)
                buf, size = a[2], a[3] & U32
            else:
                value = b"".join(n.encode("utf-8", "surrogateescape") + b"\0" for n in os.listxattr(where))
                buf, size = a[1], a[2] & U32
        except OSError as exc:
            raise Refused(exc.errno or errno.EIO) from None
        if size == 0:
            return len(value)
        if len(value) > min(size, XATTR_SIZE_MAX):
            raise Refused(errno.ERANGE)
        self.write_mem(task.tid, buf, value)
        return len(value)

    def _to_target(self, task, address, size, call) -> int:
        buffer = ctypes.create_string_buffer(max(size, 256))
        if call(buffer) < 0:
            raise Refused(ctypes.get_errno())
        self.write_mem(task.tid, address, buffer.raw[:size])
        return 0


def _plain(raw: bytes) -> bool:
    """Whether `raw` needs no resolution when no link lies on it: absolute, no "." or "..", not in /tmp
    or /dev/shm (the run's /tmp and /dev/shm are folders of its own)."""
    if not raw.startswith(b"/") or b"/." in raw:
        return False
    names = [name for name in raw.split(b"/") if name]  # "/dev//shm" is /dev/shm to the kernel
    return not (names[:1] and names[0].startswith(b"tmp")) and names[:2] != [b"dev", b"shm"]


def _openat2(path: bytes, flags: int) -> int:
    """Our descriptor of an absolute path, opened following no link at all; -1 (errno set) on failure."""
    how = OpenHow(flags | os.O_CLOEXEC, 0, NO_LINKS)
    return libc.syscall(NR_OPENAT2, AT_FDCWD, path, ctypes.byref(how), ctypes.sizeof(how))


def _readlink_fd(fd: int) -> bytes:
    """readlinkat(fd, "") of an O_PATH descriptor of a symlink: the link's own text."""
    buffer = ctypes.create_string_buffer(4096)
    rc = libc.readlinkat(fd, b"", buffer, 4096)
    if rc < 0:
        raise OSError(ctypes.get_errno(), "readlinkat")
    return buffer.raw[:rc]


for _name in QUERIES:
    setattr(Looks, "_on_" + _name, lambda self, nid, task, a, _n=_name: self._query(nid, task, a, _n))
