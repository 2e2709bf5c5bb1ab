"""bind and connect of UNIX sockets, performed by the supervisor on its duplicate of the socket with
the address it copied once (multiprocessing's Manager and Listener use them). A socket file is bound
only inside the roots (through the folder opened beneath its root: recorded like a file created
empty, so the judge's model of the folder keeps its name) and connected to only there, through a
descriptor of the socket itself, never through a name that a swap could turn into a link. Abstract
names: under bubblewrap the run has a network namespace of its own, so every name is its own; in
reduced mode the names are the machine's, so a run binds only multiprocessing's kind of name and
connects only to names it bound itself."""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import stat
import struct

from ..ops import Event
from .errors import Refused, errno_name
from .linux import AF_UNIX, AT_FDCWD

SUN_MAX = 110  # sizeof(struct sockaddr_un)
REDUCED_NAMES = (b"\0listener-", b"\0pymp-")
PATH_MESSAGE = "socket UNIX fora das pastas do exercício (o /tmp da correção, a pasta do projeto)"


class Sockets:
    """Supervisor mixin: bind and connect (the filter refuses every socket family but AF_UNIX)."""

    def _sockaddr(self, task, a) -> bytes:
        size = a[2] & 0xFFFFFFFF
        if size < 2 or size > SUN_MAX:
            raise Refused(errno.EINVAL)
        raw = self.read_mem(task.tid, a[1], size)
        if len(raw) != size:
            raise Refused(errno.EFAULT)
        if struct.unpack_from("<H", raw)[0] != AF_UNIX:
            raise Refused(errno.EINVAL)
        return raw[2:]

    def _socket_dup(self, task, fd):
        dup = self.getfd(task, fd)
        try:
            if os.fstat(dup).st_mode & 0o170000 != 0o140000:
                raise Refused(errno.ENOTSOCK)
            sock = socket.socket(fileno=dup)
        except BaseException:
            os.close(dup)
            raise
        if sock.family != AF_UNIX:
            sock.close()
            raise Refused(errno.EAFNOSUPPORT)
        return sock

    def _on_bind(self, nid, task, a):
        name = self._sockaddr(task, a)
        if name and name[:1] != b"\0":
            return self._bind_path(task, a[0], name)
        if self.reduced and name and not name.startswith(REDUCED_NAMES):
            raise Refused(errno.EACCES, "bind", "bind de um socket abstrato com um nome que não é do multiprocessing: "
                                                "no modo reduzido esses nomes são os da máquina")
        sock = self._socket_dup(task, a[0])
        try:
            sock.bind(name if name else b"")  # b"": the kernel picks a name (autobind)
            bound = sock.getsockname()
            self.bound_names.add(bound if isinstance(bound, bytes) else bound.encode("utf-8", "surrogateescape"))
        except OSError as exc:
            raise Refused(exc.errno or errno.EINVAL) from None
        finally:
            sock.close()  # our duplicate only: the run's descriptor stays bound
        return 0

    def _path(self, task, name: bytes, follow: bool):
        """(parent folder fd, is the root's own fd, last component, shown path) inside a root."""
        path = name.split(b"\0", 1)[0]
        where = self.resolve(task, AT_FDCWD, path, follow)
        if where[0] == "fd":
            raise Refused(errno.EACCES, "bind", PATH_MESSAGE)
        parent, last = where
        opened = self.open_parent(parent)
        if opened is None:
            raise Refused(errno.EACCES, "connect" if follow else "bind", PATH_MESSAGE)
        return opened[0], opened[1], last, os.path.join(parent, last)

    def _bind_path(self, task, fd, name: bytes):
        pfd, is_root, last, full = self._path(task, name, follow=False)
        try:
            sock = self._socket_dup(task, fd)
            try:
                # By its full name, which the socket keeps (getsockname, and what a Manager hands its
                # clients). Nothing in the roots can change while we handle this call (every rename,
                # link and removal there is a call we perform), the folder was opened beneath its
                # root, and bind never follows a link in the last name.
                sock.bind(full)
            except OSError as exc:
                self._record(Event("open", ok=False, errno=errno_name(exc.errno or errno.EINVAL), path=full,
                                   dir=self.node_of(os.fstat(pfd)), name=last))
                raise Refused(exc.errno or errno.EINVAL) from None
            finally:
                sock.close()
            st = os.stat(last, dir_fd=pfd, follow_symlinks=False)
            self._record(Event("open", node=self.node_of(st, fresh=True), dir=self.node_of(os.fstat(pfd)), name=last,
                               created=True, trunc=False, kind2="file", path=full))
        finally:
            if not is_root:
                os.close(pfd)
        return 0

    def _on_connect(self, nid, task, a):
        name = self._sockaddr(task, a)
        if not name:
            raise Refused(errno.EINVAL)
        if name[:1] != b"\0":
            pfd, is_root, last, _full = self._path(task, name, follow=True)
            try:
                try:
                    target = os.open(last, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=pfd)
                except OSError as exc:
                    raise Refused(exc.errno or errno.ENOENT) from None
            finally:
                if not is_root:
                    os.close(pfd)
            try:
                if not stat.S_ISSOCK(os.fstat(target).st_mode):
                    raise Refused(errno.ECONNREFUSED)
                return self._connect(task, a[0], f"/proc/self/fd/{target}")
            finally:
                os.close(target)
        if self.reduced and name not in self.bound_names:
            raise Refused(errno.ECONNREFUSED)  # not this run's: as if nobody listened there
        return self._connect(task, a[0], name)

    def _connect(self, task, fd, address):
        sock = self._socket_dup(task, fd)
        fd = sock.fileno()
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        try:
            if not flags & os.O_NONBLOCK:
                # Never block the supervisor: a full backlog waits here at most this long.
                sock.settimeout(2.0)
            sock.connect(address)
        except socket.timeout:
            raise Refused(errno.ETIMEDOUT) from None
        except OSError as exc:
            raise Refused(exc.errno or errno.ECONNREFUSED) from None
        finally:
            fcntl.fcntl(fd, fcntl.F_SETFL, flags)
            sock.close()
        return 0
