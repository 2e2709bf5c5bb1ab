"""Handlers for what changes a file's contents: write, pwrite64, writev, pwritev(2) and the
truncations (truncate, ftruncate, fallocate), done by the supervisor and recorded byte for byte."""

from __future__ import annotations

import errno
import fcntl
import os
import select
import stat

from ..ops import Event
from .errors import Refused, Stop, errno_name
from .linux import AT_FDCWD, RWF_APPEND, RWF_DSYNC, RWF_NOAPPEND, RWF_SYNC, U32


class Writes:
    """Supervisor mixin: contents. Writes to the output pipe and the channel go to Channel."""

    def _write_common(self, nid, task, fd, data_reader, offset=None, rwf=0, perform=False):
        """perform=True: never hand the call back to the kernel (the copy calls, whose data we
        already took from their source)."""
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
                if task.threads == 1 and not perform:
                    return "continue"  # decided on the descriptor alone, which no other thread can swap
                data = data_reader()
                data = data if perform else data[:4096]
                if not self.valid(nid):
                    return None
                _r, writable, _x = select.select([], [dup], [], 0)
                if writable:
                    try:
                        return os.write(dup, data)
                    except OSError as exc:  # a reader gone (EPIPE)...: the caller's error, not ours
                        raise Refused(exc.errno or errno.EIO) from None
                self.pending.append((nid, os.dup(dup), data))
                return "pending"
            fl = fcntl.fcntl(dup, fcntl.F_GETFL)
            if fl & os.O_ACCMODE == os.O_RDONLY:
                raise Refused(errno.EBADF)
            tracked = st.st_dev in self.root_devs
            if not tracked and task.threads == 1 and not perform:
                return "continue"
            data = data_reader()
            if not self.valid(nid):
                return None
            if tracked and self.data_bytes + len(data) > self.max_data:
                raise Stop("runaway", {"data": self.max_data})
            # pwritev2's RWF_NOAPPEND (Linux 6.9) writes where asked even on an O_APPEND file.
            append = (bool(fl & os.O_APPEND) and not rwf & RWF_NOAPPEND) or bool(rwf & RWF_APPEND)
            if tracked:
                # Read once: the size check and the write must use the same place (see _write_at).
                where = os.fstat(dup).st_size if append else os.lseek(dup, 0, os.SEEK_CUR) if offset is None else offset
                self._grow(st, where + len(data), len(data))
            try:
                if tracked:
                    written = _write_at(dup, data, where, move=offset is None)
                elif append:
                    written = os.write(dup, data) if offset is None else os.pwritev(dup, [data], -1, RWF_APPEND) if rwf & RWF_APPEND else os.pwrite(dup, data, offset)
                else:
                    written = os.write(dup, data) if offset is None else os.pwrite(dup, data, offset)
            except OSError as exc:
                if tracked:
                    self._record(Event("write", ok=False, errno=errno_name(exc.errno), node=self.node_of(st)))
                raise Refused(exc.errno) from None
            if tracked:
                self.data_bytes += written
                self._record(Event("write", node=self.node_of(st), offset=where, data=bytes(data[:written]),
                                   sync=bool(fl & os.O_DSYNC) or bool(rwf & (RWF_DSYNC | RWF_SYNC))))
            return written
        finally:
            os.close(dup)

    def _grow(self, st, end: int, written: int = 0):
        """A file of the roots may not reach past the write limit, and what it grows by counts as
        written (`written`: the bytes of the call, counted once they are written): the replay holds
        every file in memory, and we make these calls ourselves, so the run's own file-size limit
        never applies (a byte a terabyte away, a truncate, a preallocation)."""
        if end > self.max_data:
            raise Stop("runaway", {"data": self.max_data})
        growth = end - st.st_size - written
        if growth > 0:
            self.data_bytes += growth
            if self.data_bytes > self.max_data:
                raise Stop("runaway", {"data": self.max_data})

    def _on_write(self, nid, task, a):
        return self._write_common(nid, task, a[0], lambda: self.read_mem(task.tid, a[1], min(a[2], self.max_data + 1)) or self._fault(a[2]))

    def _fault(self, size):
        if size:
            raise Refused(errno.EFAULT)
        return b""

    def _on_pwrite64(self, nid, task, a):
        if a[3] >= 1 << 63:
            raise Refused(errno.EINVAL)
        return self._write_common(nid, task, a[0], lambda: self.read_mem(task.tid, a[1], min(a[2], self.max_data + 1)) or self._fault(a[2]), offset=a[3])

    def _on_writev(self, nid, task, a):
        return self._write_common(nid, task, a[0], lambda: self.read_iov(task.tid, a[1], a[2]))

    def _on_pwritev(self, nid, task, a):
        if a[3] >= 1 << 63:
            raise Refused(errno.EINVAL)
        return self._write_common(nid, task, a[0], lambda: self.read_iov(task.tid, a[1], a[2]), offset=a[3])

    def _on_pwritev2(self, nid, task, a):
        offset = None if a[3] == (1 << 64) - 1 else a[3]
        return self._write_common(nid, task, a[0], lambda: self.read_iov(task.tid, a[1], a[2]), offset=offset, rwf=a[5])

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
            if tracked:
                self._grow(st, length)
            try:
                os.ftruncate(dup, length)
            except OSError as exc:
                if tracked:
                    self._record(Event("truncate", ok=False, errno=errno_name(exc.errno), node=self.node_of(st), length=length))
                raise Refused(exc.errno) from None
            if tracked:
                self._record(Event("truncate", node=self.node_of(st), length=length))
            return 0
        finally:
            os.close(dup)

    def _on_fallocate(self, nid, task, a):
        mode = a[1] & U32
        if mode != 0:
            raise Refused(errno.EOPNOTSUPP, "fallocate", "fallocate com modo diferente de 0 (furos, colapsos): "
                                                         "o corretor só acompanha o crescimento simples do arquivo")
        dup = self.getfd(task, a[0])
        try:
            st = os.fstat(dup)
            tracked = stat.S_ISREG(st.st_mode) and st.st_dev in self.root_devs
            if not tracked and task.threads == 1:
                return "continue"
            if tracked:
                self._grow(st, a[2] + a[3])
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
                self._grow(st, length)
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


def _write_at(dup: int, data: bytes, where: int, move: bool) -> int:
    """Write `data` to a file of the roots exactly at `where`, the place the trace will say. The kernel
    would take the position and O_APPEND from the open file at the moment of writing, and another
    process sharing that open file (a fork) can seek it or flip O_APPEND (fcntl F_SETFL) at any
    moment, with no call we see: so the caller reads the place once, and the position then moves as
    the kernel would move it (`move`: a write at the current position)."""
    try:
        written = os.pwritev(dup, [data], where, RWF_NOAPPEND)  # never appends, whatever O_APPEND is by now
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EOPNOTSUPP):
            raise
        written = os.pwrite(dup, data, where)  # before Linux 6.9: O_APPEND set meanwhile would still append
    if move:
        os.lseek(dup, where + written, os.SEEK_SET)
    return written
