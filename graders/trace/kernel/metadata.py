"""Reduced mode's metadata changes by path (chmod, chown, utime, xattr): performed by the
supervisor inside the roots with the arguments it copied once, refused outside them."""

from __future__ import annotations

import ctypes
import errno
import os
import struct

from .errors import Refused
from .linux import AT_FDCWD, U32, libc, s32

AT_SYMLINK_NOFOLLOW = 0x100
UTIME_NOW, UTIME_OMIT = (1 << 30) - 1, (1 << 30) - 2
# name -> (index of dirfd or None, index of the path, index of flags or None, follows links)
BY_PATH = {
    "chmod": (None, 0, None, True), "fchmodat": (0, 1, None, True), "fchmodat2": (0, 1, 3, True),
    "chown": (None, 0, None, True), "lchown": (None, 0, None, False), "fchownat": (0, 1, 4, True),
    "utime": (None, 0, None, True), "utimes": (None, 0, None, True), "futimesat": (0, 1, None, True),
    "utimensat": (0, 1, 3, True),
}
FD_BASED = ("fchmod", "fchown", "fsetxattr", "fremovexattr")
# Extended attributes by path: name -> follows links. Their names and values are buffers, copied once.
XATTR_BY_PATH = {"setxattr": True, "lsetxattr": False, "removexattr": True, "lremovexattr": False}
XATTR_SIZE_MAX = 65536
libc.utimensat.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int]
libc.futimens.argtypes = [ctypes.c_int, ctypes.c_void_p]


class Metadata:
    """Supervisor mixin: the METADATA calls the reduced filter notifies."""

    def _metadata(self, nid, task, a, name):
        if name in FD_BASED or (name == "utimensat" and a[1] == 0):
            return self._metadata_fd(task, a, name)
        if name in XATTR_BY_PATH:
            dirpos, pathpos, follow = None, 0, XATTR_BY_PATH[name]
            times = None
            path = self.read_path(task.tid, a[0])
            xattr = self._xattr(task, name, a)  # copied now, once, as the path
        else:
            if name not in BY_PATH:
                return self._metadata_refuse(name)
            dirpos, pathpos, flagpos, follow = BY_PATH[name]
            flags = a[flagpos] & U32 if flagpos is not None else 0
            if flags & ~(AT_SYMLINK_NOFOLLOW | 0x1000):
                raise Refused(errno.EINVAL)
            follow = follow and not flags & AT_SYMLINK_NOFOLLOW
            path = self.read_path(task.tid, a[pathpos])
            times = self._times(task, name, a)  # copied now, once: the kernel will not read them again
            xattr = None
        if not self.valid(nid):
            return None
        where = self.resolve(task, a[dirpos] if dirpos is not None else AT_FDCWD, path, follow)
        if where[0] == "fd":
            return self._metadata_refuse(name)
        parent, entry = where
        opened = self.open_parent(parent)
        if opened is None:
            return self._metadata_refuse(name)
        pfd, is_root = opened
        try:
            if xattr is not None:
                return self._set_xattr(f"/proc/self/fd/{pfd}/{entry}", xattr)
            return self._apply(name, a, pfd, entry, times)
        finally:
            if not is_root:
                os.close(pfd)

    def _xattr(self, task, name, a):
        """(attribute name, value or None to remove, flags) of a setxattr or removexattr call."""
        attr = self.read_path(task.tid, a[1]).decode("utf-8", "surrogateescape")
        if not name.endswith("setxattr"):
            return attr, None, 0
        if a[3] > XATTR_SIZE_MAX:
            raise Refused(errno.E2BIG)
        value = self.read_mem(task.tid, a[2], a[3])
        if len(value) < a[3]:
            raise Refused(errno.EFAULT)
        return attr, value, a[4] & U32

    def _set_xattr(self, target, xattr):
        """Done by us with what we copied: `target` is a path or our duplicate of the descriptor."""
        attr, value, flags = xattr
        try:
            if value is None:
                os.removexattr(target, attr, follow_symlinks=False) if isinstance(target, str) else os.removexattr(target, attr)
            elif isinstance(target, str):
                os.setxattr(target, attr, value, flags, follow_symlinks=False)
            else:
                os.setxattr(target, attr, value, flags)
        except OSError as exc:
            raise Refused(exc.errno or errno.EACCES) from None
        return 0

    def _apply(self, name, a, pfd, entry, times):
        """The call itself, on (parent, entry) already resolved: never through a symlink again."""
        try:
            if name.startswith(("chmod", "fchmodat")):
                mode = a[1 if name == "chmod" else 2] & 0o7777
                os.chmod(entry, mode, dir_fd=pfd, follow_symlinks=False)
            elif name.endswith("chown"):
                uid, gid = (a[1], a[2]) if name != "fchownat" else (a[2], a[3])
                st = os.lstat(entry, dir_fd=pfd)
                uid, gid = s32(uid), s32(gid)
                # Only what changes nothing of ownership: the supervisor may hold more rights than the run.
                if uid not in (-1, st.st_uid) or gid not in (-1, st.st_gid):
                    return self._metadata_refuse(name)
                os.chown(entry, -1, -1, dir_fd=pfd, follow_symlinks=False)
            else:
                buffer = ctypes.create_string_buffer(times, 32) if times is not None else None
                rc = libc.utimensat(pfd, entry.encode("utf-8", "surrogateescape"), buffer, AT_SYMLINK_NOFOLLOW)
                if rc < 0:
                    raise OSError(ctypes.get_errno(), name)
        except OSError as exc:
            raise Refused(exc.errno or errno.EACCES) from None
        return 0

    def _times(self, task, name, a):
        """Two timespecs (or None for now), read from the target's memory once."""
        if name.startswith(("chmod", "fchmodat")) or name.endswith("chown"):
            return None
        addr = a[2] if name in ("futimesat", "utimensat") else a[1]
        if addr == 0:
            return None
        if name == "utime":  # struct utimbuf: two time_t
            raw = self.read_mem(task.tid, addr, 16)
            if len(raw) < 16:
                raise Refused(errno.EFAULT)
            at, mt = struct.unpack("<qq", raw)
            return struct.pack("<qqqq", at, 0, mt, 0)
        if name in ("utimes", "futimesat"):  # two timevals
            raw = self.read_mem(task.tid, addr, 32)
            if len(raw) < 32:
                raise Refused(errno.EFAULT)
            s1, u1, s2, u2 = struct.unpack("<qqqq", raw)
            if not (0 <= u1 < 1_000_000 and 0 <= u2 < 1_000_000):
                raise Refused(errno.EINVAL)
            return struct.pack("<qqqq", s1, u1 * 1000, s2, u2 * 1000)
        raw = self.read_mem(task.tid, addr, 32)
        if len(raw) < 32:
            raise Refused(errno.EFAULT)
        return raw

    def _metadata_fd(self, task, a, name):
        """By descriptor, on a file of the roots: done by us on our duplicate (the same open file,
        whatever another thread puts under that number meanwhile), with what we copied, so a program
        with threads gets them as under bubblewrap."""
        dup = self.getfd(task, a[0])
        try:
            st = os.fstat(dup)
            if not self.fd_in_roots(dup):
                return self._metadata_refuse(name)
            if name in ("fsetxattr", "fremovexattr"):
                return self._set_xattr(dup, self._xattr(task, name, a))
            times = self._times(task, name, a) if name == "utimensat" else None
            try:
                if name == "fchmod":
                    os.fchmod(dup, a[1] & 0o7777)
                elif name == "fchown":
                    if s32(a[1]) not in (-1, st.st_uid) or s32(a[2]) not in (-1, st.st_gid):
                        return self._metadata_refuse(name)
                elif libc.futimens(dup, ctypes.create_string_buffer(times, 32) if times else None) < 0:
                    raise OSError(ctypes.get_errno(), name)
            except OSError as exc:
                raise Refused(exc.errno or errno.EACCES) from None
            return 0
        finally:
            os.close(dup)

    def _metadata_refuse(self, name):
        raise Refused(errno.EACCES, name, f"{name} fora das pastas de trabalho do exercício")
