"""Shared writable mappings of files in the roots: the stores through them never pass through a
call, so the supervisor compares the file with its last known contents before every call it is
handed (and at the end of the run) and records the difference as the writes it is."""

from __future__ import annotations

import errno
import fcntl
import os
import stat

from ..ops import Event
from .errors import Refused, Stop
from .linux import U32, s32

PAGE = 4096
MS_ASYNC, MS_INVALIDATE, MS_SYNC = 1, 2, 4


class Mappings:
    """Supervisor mixin: mmap(MAP_SHARED) of a file and msync. self.mapped: node -> [dup, shadow]."""

    def _on_mmap(self, nid, task, a):
        fd = s32(a[4])  # the filter only notifies MAP_SHARED mappings of a descriptor
        if task.threads > 1:
            # Another thread could put another file under that descriptor number before the kernel
            # maps it, and the mapping would escape us.
            raise Refused(errno.EACCES, "mmap", "mmap compartilhado de um arquivo com outras threads rodando: "
                                                "o corretor não saberia qual arquivo foi mapeado")
        dup = self.getfd(task, fd)
        keep = False
        try:
            st = os.fstat(dup)
            writable = fcntl.fcntl(dup, fcntl.F_GETFL) & os.O_ACCMODE != os.O_RDONLY
            # Outside the roots' file systems (a memfd, a device) the stores reach no file we trace.
            if stat.S_ISREG(st.st_mode) and writable and st.st_dev in self.root_devs:
                node = self.node_of(st)
                if node not in self.mapped:
                    self.mapped[node] = [dup, self._contents(dup)]
                    keep = True
        finally:
            if not keep:
                os.close(dup)
        # One thread, so nothing can change the descriptor before the kernel maps it, and the
        # decision read no target memory: the kernel may run the call.
        return "continue"

    def _on_msync(self, nid, task, a):
        flags = a[2] & U32
        if flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC) or (flags & MS_ASYNC and flags & MS_SYNC) or a[0] % PAGE:
            raise Refused(errno.EINVAL)
        self.capture_mapped()
        nodes = self._mapped_in(task, a[0], a[1])
        if nodes is None:
            raise Refused(errno.ENOMEM)
        if flags & MS_SYNC:
            # Done by us on the whole file (a superset of the range): the trace says what the disk got.
            for node in nodes:
                os.fdatasync(self.mapped[node][0])
                self._record(Event("fsync", node=node, flags=1))
        return 0

    def _mapped_in(self, task, start, length):
        """Nodes of our mapped files with a mapping in [start, start+length) of the task, or None if
        nothing is mapped there (the kernel's ENOMEM)."""
        end = start + max(length, 1)
        by_key = {}
        for node, (dup, _shadow) in self.mapped.items():
            st = os.fstat(dup)
            by_key[(os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)] = node
        found, nodes = False, set()
        try:
            with open(f"/proc/{task.tid}/maps", "rb") as f:
                lines = f.read().splitlines()
        except OSError:
            raise Refused(errno.ESRCH) from None
        for line in lines:
            fields = line.split(None, 5)
            lo, hi = (int(x, 16) for x in fields[0].split(b"-"))
            if hi <= start or lo >= end:
                continue
            found = True
            major, minor = (int(x, 16) for x in fields[3].split(b":"))
            node = by_key.get((major, minor, int(fields[4])))
            if node is not None:
                nodes.add(node)
        return nodes if found else None

    def _contents(self, dup) -> bytes:
        size = os.fstat(dup).st_size
        if size > self.max_data:
            raise Stop("runaway", {"data": self.max_data})
        return os.pread(dup, size, 0)

    def capture_mapped(self):
        """Record what the stores through shared mappings changed since we last looked."""
        for node, entry in list(self.mapped.items()):
            now = self._contents(entry[0])
            old = entry[1]
            if now == old:
                continue
            for offset, data in _changes(old, now):
                self.data_bytes += len(data)
                if self.data_bytes > self.max_data:
                    raise Stop("runaway", {"data": self.max_data})
                self._record(Event("write", node=node, offset=offset, data=data, sync=False))
            entry[1] = now

    def follow_mapped(self, event: Event):
        """Keep a mapped file's last known contents in step with the writes we record for it."""
        entry = self.mapped.get(event.node)
        if entry is None or not event.ok:
            return
        shadow = bytearray(entry[1])
        if event.kind == "write":
            end = event.offset + len(event.data)
            if len(shadow) < end:
                shadow.extend(b"\0" * (end - len(shadow)))
            shadow[event.offset:end] = event.data
        elif event.kind == "truncate":
            del shadow[event.length:]
            shadow.extend(b"\0" * (event.length - len(shadow)))
        elif event.kind == "open" and event.trunc:
            shadow = bytearray()
        else:
            return
        entry[1] = bytes(shadow)

    def close_mappings(self):
        """End of the run: the last stores, then our duplicates closed."""
        try:
            self.capture_mapped()
        except (Stop, OSError):
            pass
        for dup, _shadow in self.mapped.values():
            os.close(dup)
        self.mapped.clear()


def _changes(old: bytes, new: bytes):
    """(offset, data) runs where `new` differs from `old`, compared page by page, plus its growth."""
    runs, start = [], None
    common = min(len(old), len(new))
    for offset in range(0, common, PAGE):
        differs = old[offset:offset + PAGE] != new[offset:offset + PAGE]
        if differs and start is None:
            start = offset
        elif not differs and start is not None:
            runs.append((start, new[start:offset]))
            start = None
    if start is not None:
        runs.append((start, new[start:common]))
    if len(new) > common:
        if runs and runs[-1][0] + len(runs[-1][1]) == common:
            first, data = runs.pop()
            runs.append((first, data + new[common:]))
        else:
            runs.append((common, new[common:]))
    return runs
