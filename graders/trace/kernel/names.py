"""Handlers for directory entries: rename, unlink, rmdir, mkdir, link and symlink (and their *at
forms), done by the supervisor inside the roots and recorded with the nodes they touch."""

from __future__ import annotations

import ctypes
import errno
import os

from ..ops import Event
from .errors import Refused, errno_name
from .filesystems import check_same_filesystem
from .linux import AT_EMPTY_PATH, AT_FDCWD, AT_REMOVEDIR, AT_SYMLINK_FOLLOW, U32, libc
from .seccomp import NR_RENAMEAT2
from .target import Task


class Names:
    """Supervisor mixin: the namespace of the roots."""

    def _entry(self, task, dirfd, addr, follow=False):
        path = self.read_path(task.tid, addr)
        where = self.resolve(task, dirfd, path, follow)
        if where[0] == "fd":
            return where, None, None, ""
        parent, name = where
        if name in (".", ".."):
            raise Refused(errno.EBUSY if name == "." else errno.ENOTEMPTY)
        return where, parent, name, parent.rstrip("/") + "/" + name

    def _change_entry(self, nid, task, dirfd, addr, *, absent: int, kind: str, what: str, act, **fields):
        """The shape every call that makes or removes one entry shares: resolve the entry, check the
        notification still stands, do `act(parent_fd, name) -> (node, fresh)` inside its root and record
        it (or its failure); outside the roots, `outside` decides."""
        _, parent, name, full = self._entry(task, dirfd, addr)
        if parent is None:
            raise Refused(absent)
        if not self.valid(nid):
            return None
        opened = self.open_parent(parent)
        if opened is None:
            return self.outside(task, kind, f"{what} {full!r}")
        pfd, is_root = opened
        try:
            dnode = self.node_of(os.fstat(pfd))
            try:
                st, fresh = act(pfd, name)
            except OSError as exc:
                self._record(Event(kind, ok=False, errno=errno_name(exc.errno), dir=dnode, name=name, path=full, **fields))
                raise Refused(exc.errno) from None
            self._record(Event(kind, node=self.node_of(st, fresh=fresh), dir=dnode, name=name, path=full, **fields))
            return 0
        finally:
            if not is_root:
                os.close(pfd)

    def _rename(self, nid, task, odir, oaddr, ndir, naddr, flags):
        flags &= U32
        if flags & ~3:
            raise Refused(errno.EINVAL)  # RENAME_WHITEOUT and unknown flags
        _, p1, n1, full1 = self._entry(task, odir, oaddr)
        _, p2, n2, full2 = self._entry(task, ndir, naddr)
        if p1 is None or p2 is None:
            raise Refused(errno.EXDEV)
        if not self.valid(nid):
            return None
        self.release_unmapped()  # a new name may make a mapped file the checkpoint (mappings.py)
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
                self._record(Event("rename", ok=False, errno=errno_name(exc.errno), path=full1, path2=full2,
                                   dir=self.node_of(os.fstat(a[0])), name=n1, dir2=self.node_of(os.fstat(b[0])), name2=n2))
                raise Refused(exc.errno) from None
            try:
                there = os.lstat(n2, dir_fd=b[0])
            except OSError:
                there = None
            for st in (moved, there):
                if st is not None and (st.st_dev, st.st_ino) in self.root_keys:
                    # A root stays a real folder where it is (EBUSY, as for a mount point): a link put
                    # in place of the work folder would take the emptying of the roots after this run,
                    # and the next run, out of them.
                    raise Refused(errno.EBUSY)
            try:
                check_same_filesystem(self, p1, p2, "rename")
                if flags:
                    rc = libc.syscall(NR_RENAMEAT2, a[0], n1.encode("utf-8", "surrogateescape"), b[0],
                                      n2.encode("utf-8", "surrogateescape"), flags)
                    if rc < 0:
                        raise OSError(ctypes.get_errno(), "renameat2")
                else:
                    os.rename(n1, n2, src_dir_fd=a[0], dst_dir_fd=b[0])
            except OSError as exc:
                self._record(Event("rename", ok=False, errno=errno_name(exc.errno), node=self.node_of(moved),
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
        def act(pfd, name):
            st = os.lstat(name, dir_fd=pfd)
            if (st.st_dev, st.st_ino) in self.root_keys:
                raise OSError(errno.EBUSY, "root")  # a root stays (see _rename)
            (os.rmdir if directory else os.unlink)(name, dir_fd=pfd)
            return st, False

        return self._change_entry(nid, task, dirfd, addr, absent=errno.EACCES, kind="rmdir" if directory else "unlink",
                                  what="apagar", act=act)

    def _on_unlink(self, nid, task, a):
        return self._remove(nid, task, AT_FDCWD, a[0], False)

    def _on_rmdir(self, nid, task, a):
        return self._remove(nid, task, AT_FDCWD, a[0], True)

    def _on_unlinkat(self, nid, task, a):
        flags = a[2] & U32
        if flags & ~AT_REMOVEDIR:
            raise Refused(errno.EINVAL)
        return self._remove(nid, task, a[0], a[1], bool(flags & AT_REMOVEDIR))

    def _mkdir(self, nid, task, dirfd, addr, mode):
        def act(pfd, name):
            os.mkdir(name, (mode & 0o7777) & ~task.umask, dir_fd=pfd)
            return os.lstat(name, dir_fd=pfd), True

        return self._change_entry(nid, task, dirfd, addr, absent=errno.EEXIST, kind="mkdir", what="criar a pasta",
                                  act=act, kind2="dir")

    def _on_mkdir(self, nid, task, a):
        return self._mkdir(nid, task, AT_FDCWD, a[0], a[1])

    def _on_mkdirat(self, nid, task, a):
        return self._mkdir(nid, task, a[0], a[1], a[2])

    def _link(self, nid, task, odir, oaddr, ndir, naddr, flags):
        flags &= U32
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
                if not self._signal_target(task, src[1]):
                    raise Refused(errno.EACCES)  # a descriptor of a process that is not the run's
                other = Task(src[1])
                source_dup = self.getfd(other, src[2])
        try:
            _, p2, n2, full2 = self._entry(task, ndir, naddr)
            if p2 is None:
                raise Refused(errno.EEXIST)
            if not self.valid(nid):
                return None
            self.release_unmapped()
            b = self.open_parent(p2)
            if b is None:
                return self.outside(task, "link", f"criar o link {full2!r}")
            try:
                dnode = self.node_of(os.fstat(b[0]))
                try:
                    if source_dup is not None:
                        st = os.fstat(source_dup)
                        if not self.fd_in_roots(source_dup):
                            raise Refused(errno.EXDEV)
                        check_same_filesystem(self, os.path.dirname(os.readlink(f"/proc/self/fd/{source_dup}")),
                                              p2, "link")
                        os.link(f"/proc/self/fd/{source_dup}", n2, dst_dir_fd=b[0], follow_symlinks=True)
                    else:
                        sp, sn = src
                        if sp == "/proc" or sp.startswith("/proc/"):
                            raise Refused(errno.EXDEV)  # link(2) of a /proc entry itself, as the kernel answers
                        a = self.open_parent(sp)
                        if a is None:
                            return self.outside(task, "link", f"criar o link {full2!r}")
                        try:
                            st = os.lstat(sn, dir_fd=a[0])
                            check_same_filesystem(self, sp, p2, "link")
                            os.link(sn, n2, src_dir_fd=a[0], dst_dir_fd=b[0], follow_symlinks=False)
                        finally:
                            if not a[1]:
                                os.close(a[0])
                except OSError as exc:
                    self._record(Event("link", ok=False, errno=errno_name(exc.errno), dir=dnode, name=n2, path=full2))
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
        self.release_unmapped()

        def act(pfd, name):
            os.symlink(target, name, dir_fd=pfd)
            return os.lstat(name, dir_fd=pfd), True

        return self._change_entry(nid, task, ndir, naddr, absent=errno.EEXIST, kind="symlink", what="criar o link",
                                  act=act, target=target, kind2="symlink")

    def _on_symlink(self, nid, task, a):
        return self._symlink(nid, task, a[0], AT_FDCWD, a[1])

    def _on_symlinkat(self, nid, task, a):
        return self._symlink(nid, task, a[0], a[1], a[2])

