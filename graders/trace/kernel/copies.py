"""The kernel's copy calls (sendfile, copy_file_range, splice): performed by the supervisor as the
read and the write they are, so a copy into a file of the roots is recorded byte for byte."""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import select
import stat
import struct

from .errors import Refused
from .linux import Iovec, U32, libc, s32

libc.process_vm_writev.restype = ctypes.c_ssize_t
libc.process_vm_writev.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p,
                                   ctypes.c_ulong, ctypes.c_ulong]
CHUNK = 1 << 20  # one call copies at most this much (the kernel also copies less than asked)
SPLICE_F_NONBLOCK = 2
PIPE_PAGE = 4096


class Copies:
    """Supervisor mixin: copies between descriptors."""

    def _copy(self, nid, task, call, in_fd, in_addr, out_fd, out_addr, count, nonblock=False):
        count = min(count, CHUNK, self.max_data + 1)
        out = self.getfd(task, out_fd)
        try:
            if not stat.S_ISREG(os.fstat(out).st_mode):
                count = min(count, PIPE_PAGE)  # a pipe or socket with room takes this much without blocking us
        finally:
            os.close(out)
        src = self.getfd(task, in_fd)
        try:
            src_st = os.fstat(src)
            if fcntl.fcntl(src, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                raise Refused(errno.EBADF)
            # Offsets are read once, here: the kernel will not read them again.
            in_off = self._read_offset(task, in_addr)
            out_off = self._read_offset(task, out_addr)
            if not self.valid(nid):
                return None
            if in_off is not None:
                data = os.pread(src, count, in_off)
            else:
                if not stat.S_ISREG(src_st.st_mode) and not select.select([src], [], [], 0)[0]:
                    if nonblock or fcntl.fcntl(src, fcntl.F_GETFL) & os.O_NONBLOCK:
                        raise Refused(errno.EAGAIN)
                    raise Refused(errno.EAGAIN, call, f"{call} de um pipe ainda vazio: o corretor não espera "
                                                      "pelos dados (escreva no pipe antes de copiar dele)")
                data = os.read(src, count)
            result = self._write_common(nid, task, out_fd, lambda: data, offset=out_off, perform=True)
            if result is None:
                return None
            written = len(data) if result == "pending" else result  # a full pipe: answered when written
            if written < len(data) and in_off is None and stat.S_ISREG(src_st.st_mode):
                os.lseek(src, written - len(data), os.SEEK_CUR)  # give back what was not written
            if in_off is not None:
                self._write_offset(task, in_addr, in_off + written)
            if out_off is not None:
                self._write_offset(task, out_addr, out_off + written)
            return result
        except OSError as exc:
            raise Refused(exc.errno or errno.EIO) from None
        finally:
            os.close(src)

    def _same_file_system(self, task, in_fd, out_fd):
        """copy_file_range's own rules, as the kernel (5.19 and later) applies them."""
        src, dst = self.getfd(task, in_fd), None
        try:
            dst = self.getfd(task, out_fd)
            a, b = os.fstat(src), os.fstat(dst)
            if stat.S_ISDIR(a.st_mode) or stat.S_ISDIR(b.st_mode):
                raise Refused(errno.EISDIR)
            if not stat.S_ISREG(a.st_mode) or not stat.S_ISREG(b.st_mode):
                raise Refused(errno.EINVAL)
            if fcntl.fcntl(dst, fcntl.F_GETFL) & os.O_APPEND:
                raise Refused(errno.EBADF)
            if a.st_dev != b.st_dev:
                raise Refused(errno.EXDEV)
        finally:
            os.close(src)
            if dst is not None:
                os.close(dst)

    def _read_offset(self, task, addr):
        if addr == 0:
            return None
        raw = self.read_mem(task.tid, addr, 8)
        if len(raw) < 8:
            raise Refused(errno.EFAULT)
        value = struct.unpack("<q", raw)[0]
        if value < 0:
            raise Refused(errno.EINVAL)
        return value

    def _write_offset(self, task, addr, value):
        buffer = ctypes.create_string_buffer(struct.pack("<q", value), 8)
        local, remote = Iovec(ctypes.addressof(buffer), 8), Iovec(addr, 8)
        if libc.process_vm_writev(task.tid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) != 8:
            raise Refused(errno.EFAULT)

    def _on_sendfile(self, nid, task, a):
        return self._copy(nid, task, "sendfile", a[1], a[2], a[0], 0, a[3])

    def _on_copy_file_range(self, nid, task, a):
        if a[5] & U32:
            raise Refused(errno.EINVAL)
        self._same_file_system(task, a[0], a[2])
        return self._copy(nid, task, "copy_file_range", a[0], a[1], a[2], a[3], a[4])

    def _on_splice(self, nid, task, a):
        flags = a[5] & U32
        if s32(a[0]) < 0 or s32(a[2]) < 0:
            raise Refused(errno.EBADF)
        return self._copy(nid, task, "splice", a[0], a[1], a[2], a[3], a[4], nonblock=bool(flags & SPLICE_F_NONBLOCK))
