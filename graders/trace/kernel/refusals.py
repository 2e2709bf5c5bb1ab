"""Handlers that check a call and let it through or refuse it: shared mmap, prctl(PR_SET_SECCOMP),
signals (kill, tkill, tgkill, pidfd_open), metadata changes in reduced mode, and the calls the
filter hands over only to be refused (io_uring, ptrace, namespaces, mounts...)."""

from __future__ import annotations

import errno
import fcntl
import os
import stat

from .errors import Refused
from .linux import AT_FDCWD, U32, s32
from .seccomp import METADATA, REFUSED


class Checks:
    """Supervisor mixin: the calls checked, not emulated."""

    def _on_mmap(self, nid, task, a):
        prot, fd = a[2] & U32, s32(a[4])  # the filter only notifies MAP_SHARED mappings
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
        pid = s32(pid)
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
        return "continue" if self._signal_target(task, a[0]) and s32(a[0]) > 0 else self._deny_signal()

    def _on_tgkill(self, nid, task, a):
        return "continue" if self._signal_target(task, a[0]) and s32(a[0]) > 0 else self._deny_signal()

    def _on_pidfd_open(self, nid, task, a):
        return "continue" if s32(a[0]) > 0 and self._signal_target(task, a[0]) else self._deny_signal()

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
        raise Refused(errno.EPERM, name, message)
    return handler


for _name, _message in REFUSED.items():
    setattr(Checks, "_on_" + _name, _make_refusal(_name, f"{_message}: recusado pelo corretor"))
for _name in METADATA:
    setattr(Checks, "_on_" + _name, lambda self, nid, task, a, _n=_name: self._metadata(nid, task, a, _n))

