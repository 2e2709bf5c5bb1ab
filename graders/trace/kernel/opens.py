"""Handlers for opens that may write (open, openat, creat): done by the supervisor inside the roots
and the resulting descriptor installed in the target, so every file it writes is one we opened."""

from __future__ import annotations

import errno
import fcntl
import os
import stat

from ..ops import Event
from .errors import Refused, errno_name
from .linux import AT_FDCWD, O_PATH, O_TMPFILE_BIT, U32
from .seccomp import ADDFD, ADDFD_FLAG_SEND, NOTIF_ADDFD
from .reads import WRITE_BITS
from .target import Task

# Devices any run may open for writing: they hold no file, so nothing there is traced.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


class Opens:
    """Supervisor mixin: the open family."""

    def _open_common(self, nid, task: Task, dirfd, path_addr, flags, mode):
        flags &= U32
        if self.looks_here() and (flags & O_PATH or not flags & WRITE_BITS):
            return self.look_open(nid, task, dirfd, path_addr, flags)  # performed on our copy (looks.py)
        if flags & O_PATH:
            # The kernel drops every other flag of an O_PATH open: it writes nothing and the
            # decision reads no target memory, so the kernel may run it (path read only once, there).
            return "continue"
        path = self.read_path(task.tid, path_addr)
        if not self.valid(nid):
            return None
        tmpfile = flags & O_TMPFILE_BIT == O_TMPFILE_BIT
        follow = not (flags & os.O_NOFOLLOW or (flags & os.O_CREAT and flags & os.O_EXCL)) and not tmpfile
        where = self.resolve(task, dirfd, path, follow if not tmpfile else True)
        if where[0] == "fd":
            return self._reopen(nid, task, where, flags)
        parent, name = where
        full = parent.rstrip("/") + "/" + name
        if full in DEVICES and not tmpfile:
            # Opened by us from the path we copied (the kernel would read it again).
            try:
                fd = os.open(full, flags & ~(os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_TRUNC) | os.O_NOFOLLOW)
            except OSError as exc:
                raise Refused(exc.errno) from None
            return self._install(nid, fd, flags)
        target_dir = full if tmpfile else parent
        opened = self.open_parent(target_dir)
        if opened is None:
            if "/__pycache__/" in full and full.endswith(".pyc"):
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
                self._record(Event("open", ok=False, errno=errno_name(exc.errno), path=full,
                                   dir=self.node_of(os.fstat(pfd)), name="" if tmpfile else name))
                raise Refused(exc.errno) from None
            st = os.fstat(fd)
            dnode = self.node_of(os.fstat(pfd))
            node = self.node_of(st, fresh=created)
            if tmpfile and not base & os.O_EXCL:
                self.linkable.add(node)  # nameless, but linkat(AT_EMPTY_PATH) may give it a name later
            trunc = bool(base & os.O_TRUNC) and not created and stat.S_ISREG(st.st_mode)
            self._record(Event("open", node=node, dir=dnode, name="" if tmpfile else name, created=created,
                               trunc=trunc, kind2="file", path=full))
        finally:
            if not is_root:
                os.close(pfd)
        return self._install(nid, fd, flags)

    def _install(self, nid, fd, flags):
        try:
            request = bytearray(ADDFD.pack(nid, ADDFD_FLAG_SEND, fd, 0, os.O_CLOEXEC if flags & os.O_CLOEXEC else 0))
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
        if not self._signal_target(task, pid):
            # Another process's descriptor (the CLI's standard output...): we would take it with our
            # own rights, which the run does not have.
            raise Refused(errno.EACCES, "open", "reabrir para escrita um descritor de um processo que não é "
                                                "desta correção")
        refuse = Refused(errno.EACCES, "open", "reabrir para escrita por /proc/self/fd um arquivo sem nome "
                                               "ou fora das pastas de trabalho: o corretor não acompanharia "
                                               "essa nova abertura")
        dup = self.getfd(Task(pid), number)
        try:
            st = os.fstat(dup)
            if not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
                # A pipe or a device: reopened by us through our duplicate, never by the kernel
                # from a path it would read again. We hold no Landlock: only an anonymous pipe, a
                # device any run may write, or what lies in the roots (an O_PATH open of a named pipe
                # or a device anywhere is the kernel's, and writes nothing).
                name = os.readlink(f"/proc/self/fd/{dup}")
                if name.startswith("/") and name not in DEVICES and self.root_for(os.path.dirname(name)) is None:
                    raise refuse
                base = flags & ~(os.O_CLOEXEC | os.O_CREAT | os.O_EXCL | os.O_TRUNC)
                try:
                    fd = os.open(f"/proc/self/fd/{dup}", base)
                except OSError as exc:
                    raise Refused(exc.errno) from None
                return self._install(nid, fd, flags)
            try:
                name_now = os.readlink(f"/proc/self/fd/{dup}")
            except OSError:
                name_now = ""
        finally:
            os.close(dup)
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

