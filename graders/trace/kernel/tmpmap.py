"""Reduced mode's /tmp: the run's own temp folder stands in for the machine's, as bubblewrap's tmpfs
does. Mutations already go through `resolve` (target.py), which maps the name; this module answers
the calls that only look at a path (read-only opens, stat, access, readlink, statfs, xattr reads,
chdir) from the run's folder when their path leads into /tmp, and lets the kernel run them elsewhere.

Those are the only calls continued after their path was read ("continue_read"): what a second task
could get by rewriting the path after we looked is a read the kernel decides by itself, which
Landlock fences (the machine's /tmp is not among its readable folders) exactly as it fences the
same call made with that path directly. Nothing here writes to the disk.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import stat

from .errors import Refused
from .linux import AT_EMPTY_PATH, AT_FDCWD, O_PATH, RESOLVE_BENEATH, RESOLVE_NO_MAGICLINKS, RESOLVE_NO_SYMLINKS
from .linux import OpenHow, U32, libc
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
# Prefixes whose names the lexical fast path cannot judge: the machine's /tmp, links of /proc, ".".
SLOW = (b"/tmp", b"/proc", b"/dev/fd")


class TmpMap:
    """Supervisor mixin: self.tmp_private (the run's temp folder as components, or None when the
    names need no mapping: bubblewrap mode), set up by the Supervisor."""

    def tmp_lookup(self, tid, dirfd, raw: bytes, follow: bool):
        """None when the kernel, given this path, finds what the run should find (let it run);
        else the real path in the run's temp folder. Raises Refused for a name that is not there."""
        lead = b"/" + raw.lstrip(b"/")
        if raw.startswith(b"/") and b"/." not in raw and not lead.startswith(SLOW) and not lead.startswith(
                self.root_prefixes):
            return None  # a system path: no link of the run's can lie on it
        task = Task(tid)
        try:
            where = self.resolve(task, dirfd, raw, follow)
        except Refused:
            if self.tmp_hit:
                raise
            return None  # the kernel will give its own error
        if not self.tmp_hit or where[0] == "fd":
            return None
        full = where[0].rstrip("/") + "/" + where[1]
        root = self.tmp_root
        if full != root[1] and not full.startswith(root[1] + "/"):
            # Resolved through a link of the run's /tmp to somewhere outside it: the kernel would look
            # for that link in the machine's /tmp, and we may not open for it what Landlock fences.
            raise Refused(errno.EACCES, "open", f"seguir {raw.decode('utf-8', 'replace')!r}: um link dentro de "
                                                "/tmp que aponta para fora dele não é seguido no isolamento reduzido")
        return full

    def tmp_open(self, full: str, flags: int, follow: bool) -> int:
        """Our descriptor of `full` in the run's temp folder, opened beneath it without links."""
        root = self.tmp_root
        rel = os.path.relpath(full, root[1])
        how = OpenHow(flags | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW), 0,
                      RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
        fd = libc.syscall(NR_OPENAT2, root[2], rel.encode("utf-8", "surrogateescape"), ctypes.byref(how),
                          ctypes.sizeof(how))
        if fd < 0:
            raise Refused(ctypes.get_errno())
        return fd

    def open_through_tmp(self, nid, tid, dirfd, addr, flags):
        """A read-only (or O_PATH) open: "continue_read", or None once our descriptor is installed."""
        raw = self.read_path(tid, addr)
        full = self.tmp_lookup(tid, dirfd, raw, not flags & os.O_NOFOLLOW)
        if full is None:
            if self.code_started:
                self.note_probe(tid, dirfd, addr, raw)
            return "continue_read"
        if not self.valid(nid):
            return None
        if flags & O_PATH:
            # The kernel installs no O_PATH descriptor for a supervisor (SECCOMP_IOCTL_NOTIF_ADDFD takes
            # files it can read or write): the run gets one opened for reading, which does the same.
            flags = os.O_RDONLY | (flags & (os.O_DIRECTORY | os.O_CLOEXEC))
        fd = self.tmp_open(full, flags & ~os.O_CLOEXEC & ~os.O_NOFOLLOW & U32, True)
        return self._install(nid, fd, flags)

    def _query(self, nid, task, a, name):
        dirpos, pathpos, flagpos, follow = QUERIES[name]
        if not self.tmp_private or not self.code_started:
            return "continue"  # decided on registers alone (the interpreter's own start, or no mapping)
        flags = a[flagpos] & U32 if flagpos is not None else 0
        if flags & AT_EMPTY_PATH:
            return "continue_read" if self.read_path(task.tid, a[pathpos]) == b"" else self._query_path(
                nid, task, a, name, dirpos, pathpos, flags, follow)
        return self._query_path(nid, task, a, name, dirpos, pathpos, flags, follow)

    def _query_path(self, nid, task, a, name, dirpos, pathpos, flags, follow):
        if flags & AT_SYMLINK_NOFOLLOW:
            follow = False
        raw = self.read_path(task.tid, a[pathpos])
        full = self.tmp_lookup(task.tid, a[dirpos] if dirpos is not None else AT_FDCWD, raw, follow)
        if full is None:
            return "continue_read"
        if name == "chdir":
            raise Refused(errno.EACCES, "chdir", "entrar numa pasta de /tmp escrita à mão no isolamento reduzido: "
                                                 "use tempfile (TMPDIR) ou a pasta de trabalho")
        if not self.valid(nid):
            return None
        fd = self.tmp_open(full, O_PATH, follow)
        try:
            return self._answer(task, a, name, fd, flags)
        finally:
            os.close(fd)

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


def _readlink_fd(fd: int) -> bytes:
    """readlinkat(fd, "") of an O_PATH descriptor of a symlink: the link's own text."""
    buffer = ctypes.create_string_buffer(4096)
    rc = libc.readlinkat(fd, b"", buffer, 4096)
    if rc < 0:
        raise OSError(ctypes.get_errno(), "readlinkat")
    return buffer.raw[:rc]


for _name in QUERIES:
    setattr(TmpMap, "_on_" + _name, lambda self, nid, task, a, _n=_name: self._query(nid, task, a, _n))
