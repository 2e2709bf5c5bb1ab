"""Shared writable mappings of files in the roots: the stores through them never pass through a
call, so the supervisor compares the file with its last known contents before every call it is
handed (and at the end of the run) and records the difference as the writes it is.

What happens between two calls is not seen: a store and its undoing leave no difference. So the
trace also says when a file may be written that way ("mapped", at the mmap) and when it no longer
can ("unmapped": before a rename, link or symlink, no process of the run maps it any more), and the
judge treats a checkpoint still mapped as a file that can hold anything at any instant."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time

from ..ops import Event
from .errors import Refused, Stop
from .linux import CLONE_VM, MAP_ANONYMOUS, MAP_SHARED, U32, s32
from .seccomp import FLAG_CONTINUE

PAGE = 4096
PROT_WRITE = 2
CONFIRM_SECONDS = 2.0
SWAPPED = ("mmap compartilhado e gravável com outras threads rodando: outro arquivo das pastas do exercício foi "
           "mapeado no lugar do que o descritor apontava quando o corretor olhou (uma thread trocou o descritor "
           "durante a chamada)")
MS_ASYNC, MS_INVALIDATE, MS_SYNC = 1, 2, 4


class Mappings:
    """Supervisor mixin: mmap(MAP_SHARED) of a file and msync. self.mapped: node -> [dup, shadow]."""

    def _on_mmap(self, nid, task, a):
        flags = a[3] & U32
        if not flags & MAP_SHARED or flags & MAP_ANONYMOUS:
            return "continue"  # a MAP_FIXED mapping of no file, or a private one: notified only to be seen
        fd = s32(a[4])
        prot = a[2] & U32
        threads = task.threads
        # With other threads, one could put another file under that descriptor number before the kernel
        # maps it: a writable mapping is then confirmed in the process's maps before anything else runs.
        confirm = bool(prot & PROT_WRITE) and threads > 1
        before = self._shared_entries(task) if confirm else None
        decided = None
        if threads > 1:
            self.unsure = True  # the file mapped may not be the one we look at: mprotect checks the maps
        dup = self.getfd(task, fd)
        keep = False
        try:
            st = os.fstat(dup)
            decided = _key(st)
            writable = fcntl.fcntl(dup, fcntl.F_GETFL) & os.O_ACCMODE != os.O_RDONLY
            # Outside the roots' file systems (a memfd, a device) the stores reach no file we trace; nor
            # in a file whose last name is gone (multiprocessing's heap in /dev/shm: mkstemp, unlink,
            # mmap), which no crash state can ever show.
            if (stat.S_ISREG(st.st_mode) and writable and st.st_dev in self.root_devs
                    and not self._nameless(st)):
                node = self.node_of(st)
                key = _key(st)
                if not prot & PROT_WRITE:
                    # Read-only: it writes nothing unless an mprotect adds PROT_WRITE later (the kernel
                    # allows that only because the descriptor was writable), and that call is ours.
                    if node not in self.mapped and key not in self.maywrite:
                        self.maywrite[key] = (node, dup)
                        keep = True
                    # Until this thread calls again, the kernel may not have installed the mapping: a
                    # rename handled meanwhile (another process's) must not forget the file.
                    self.risky[task.tid] = ("map", task.tgid, (key,), self.nr_mmap)
                    ranges = self._protecting(task) if node not in self.mapped else []
                    if not ranges:
                        return "continue"
                    # Another thread's mprotect adding PROT_WRITE may run after the kernel maps this: the
                    # mapping could write only if it lands in that call's range, so see where it lands.
                    before = self._shared_entries(task)
                    if before is None or self._also_mapping(task, key):
                        self._promote(key)
                        return "continue"
                    self.respond(nid, flags=FLAG_CONTINUE)
                    landed = self._landing(task, before, key)
                    if landed is None or any(lo < hi2 and lo2 < hi for lo, hi in landed for lo2, hi2 in ranges):
                        self._promote(key)
                    return None
                # The kernel installs the mapping after we answer: until this thread calls again, a scan
                # of the run's mappings may miss it (release_unmapped keeps the file).
                self.in_flight[task.tid] = node
                if node not in self.mapped:
                    held = self.maywrite.pop(key, None)
                    if held is not None:
                        os.close(held[1])
                    self.mapped[node] = [dup, self._contents(dup)]
                    keep = True
                    self._record(Event("mapped", node=node, path=_name(dup)))
        finally:
            if not keep:
                os.close(dup)
        # One thread (or a read-only mapping, whose upgrade we see), and the decision read no target
        # memory: the kernel may run the call.
        if not confirm:
            return "continue"
        self.respond(nid, flags=FLAG_CONTINUE)
        self._confirm(task, before, decided)
        return None

    def _on_munmap(self, nid, task, a):
        return "continue"  # notified so that no mapping leaves unseen while _confirm looks (the filter)

    def _confirm(self, task, before: set, decided: tuple):
        """After letting a writable shared mmap of a multi-threaded process through: wait until its
        mapping shows in the process's maps and check that it maps the file we decided on. Every way
        to add a shared file mapping to a process (mmap, mremap) or to take one away (munmap, mremap,
        a MAP_FIXED mmap over it) is a call we handle, and we handle none meanwhile; so a new shared
        mapping of another file of the roots can only be a descriptor swapped under the call, and the
        run stops. Once the thread is seen blocked in another call, a mapping that is not there was
        never made (the call failed). The thread or its process gone first (an execve, an exit) leaves
        nothing to check, so the run stops too: no honest program maps a file just to vanish."""
        devs = {(os.major(d), os.minor(d)) for d in self.root_devs}
        deadline = time.monotonic() + CONFIRM_SECONDS
        while True:
            state = _syscall_state(task.tid)  # before the maps, as in _landing
            if state is None:
                self._unconfirmed()
            now = self._shared_entries(task)
            if now is None:
                self._unconfirmed()
            new = now - before
            if any(e[1] != decided and e[1][:2] in devs for e in new):
                self._record(Event("refused", ok=False, errno="EACCES",
                                   payload={"call": "mmap", "message": SWAPPED}))
                raise Stop("refused", {"message": SWAPPED})
            if any(e[1] == decided for e in new):
                return
            if state not in ("running", "unknown") and state != self.nr_mmap:
                return  # out of the call with no new mapping: the mmap failed and mapped nothing
            if time.monotonic() > deadline:
                self._unconfirmed()
            time.sleep(0.0002)

    def _protecting(self, task) -> list:
        """The ranges of the mprotect calls adding PROT_WRITE that other threads of this process (or of a
        process in the same memory, across vfork) may still be in (let through, not known to have run)."""
        entries = [(other, tgid) for other, (kind, tgid, _keys, _nr) in list(self.risky.items())
                   if other != task.tid and kind == "mprotect" and other in self.protected]
        if not entries:
            return []
        same = self._sharing(task.tgid) if any(tgid != task.tgid for _o, tgid in entries) else {task.tgid}
        return [self.protected[other] for other, tgid in entries if tgid in same and not self._settled(other)]

    def _sharing(self, tgid) -> set:
        """The processes whose memory is `tgid`'s: itself, and across vfork the parent whose thread waits
        in vfork (or clone with CLONE_VM) for it, or the child one of its threads waits for. The filter
        refuses CLONE_VM without CLONE_VFORK, and clone3, so no other process shares memory."""
        found, todo = {tgid}, [tgid]
        while todo and len(found) < 64:
            pid = todo.pop()
            for other in self._vfork_links(pid):
                if other not in found:
                    found.add(other)
                    todo.append(other)
        return found

    def _vfork_links(self, pid) -> set:
        links = set()
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                if _in_vfork(tid, self.nr_vfork, self.nr_clone):
                    links |= _children(pid, tid)
            with open(f"/proc/{pid}/stat", "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
            for tid in os.listdir(f"/proc/{ppid}/task"):
                if _in_vfork(tid, self.nr_vfork, self.nr_clone) and pid in _children(ppid, tid):
                    links.add(ppid)
        except (OSError, ValueError, IndexError):
            pass
        return links

    def _also_mapping(self, task, key) -> bool:
        """Whether another thread of the process may still be in an mmap of the same file we let through:
        then a new mapping of it in the maps is not known to be this call's."""
        return any(other != task.tid and tgid == task.tgid and kind == "map" and key in keys
                   and not self._settled(other) for other, (kind, tgid, keys, _nr) in list(self.risky.items()))

    def _landing(self, task, before: set, key) -> list | None:
        """After letting a read-only shared mmap of `key` through: the address ranges where it landed ([]
        when the call failed and mapped nothing), or None when that cannot be known in time (the process
        gone, the thread still in the call after CONFIRM_SECONDS)."""
        deadline = time.monotonic() + CONFIRM_SECONDS
        while True:
            # The thread's state before the maps: seen out of the call first, the maps read after it
            # hold the mapping if the call made one (read the other way, it could land in between).
            state = _syscall_state(task.tid)
            if state is None:
                return None
            left = state not in ("running", "unknown") and state != self.nr_mmap
            now = self._shared_entries(task)
            if now is None:
                return None
            new = [span for span, k in now - before if k == key]
            if new:
                return [tuple(int(x, 16) for x in span.split(b"-")) for span in new]
            if left:
                return []  # out of the call with no new mapping: the mmap failed
            if time.monotonic() > deadline:
                return None
            time.sleep(0.0002)

    def _unconfirmed(self):
        message = ("mmap compartilhado e gravável com outras threads rodando: o corretor não conseguiu confirmar "
                   "qual arquivo foi mapeado")
        self._record(Event("refused", ok=False, errno="EACCES", payload={"call": "mmap", "message": message}))
        raise Stop("refused", {"message": message})

    def _shared_entries(self, task) -> set | None:
        """The process's shared file mappings: {(range, (major, minor, inode))}; None if it is gone."""
        try:
            with open(f"/proc/{task.tid}/maps", "rb") as f:
                lines = f.read().splitlines()
        except (FileNotFoundError, ProcessLookupError):
            return None
        except OSError:
            raise Refused(errno.ESRCH) from None
        found = set()
        for line in lines:
            fields = line.split(None, 5)
            if len(fields) < 5 or fields[1][3:4] != b"s" or fields[4] == b"0":
                continue
            major, minor = (int(x, 16) for x in fields[3].split(b":"))
            found.add((fields[0], (major, minor, int(fields[4]))))
        return found

    def _on_mprotect(self, nid, task, a):
        return self._protect(task, a, self.nr_mprotect)

    def _on_pkey_mprotect(self, nid, task, a):
        return self._protect(task, a, self.nr_pkey_mprotect)

    def _protect(self, task, a, nr):
        """mprotect or pkey_mprotect adding PROT_WRITE (the filter's rule): a shared mapping of a file in
        the roots that it reaches becomes writable from here on, and is traced like one (a read-only
        mapping of a descriptor opened read-only cannot be upgraded: the kernel refuses, EACCES)."""
        threads = task.threads
        start, length = a[0], a[1]
        end = start + ((length + PAGE - 1) & ~(PAGE - 1))
        if not self.maywrite and not self.unsure:
            # No shared mapping yet, but another thread's mmap (or a vfork child's, in the same memory)
            # may land in this range before the kernel runs this call (_protecting).
            self.risky[task.tid] = ("mprotect", task.tgid, (), nr)
            self.protected[task.tid] = (start, end)
            return "continue"
        spans, holes = self._spans(task, start, end)
        for key, flags in spans:
            if key in self.maywrite:
                self._promote(key)
            elif key not in self._mapped_keys() and flags is not None and b"mw" in flags.split():
                # A mapping that may become writable and that no mmap we answered explains: only a
                # descriptor swapped by another thread while the kernel mapped it leaves one.
                raise Refused(errno.EACCES, "mprotect", "mprotect que tornaria gravável um mapeamento compartilhado "
                                                        "de arquivo que o corretor não acompanhou")
        if threads > 1 and holes:
            # Another thread could map a file into the hole before the kernel runs this call.
            raise Refused(errno.ENOMEM)
        # A read-only mapping another thread's mmap (or mremap) may still be making could land in this
        # range after we looked: wait until those calls are over, then look again.
        waiting = [other for other, (kind, tgid, keys, _nr) in list(self.risky.items())
                   if other != task.tid and kind != "mprotect" and keys]
        if waiting:
            same = self._sharing(task.tgid)
            waiting = [other for other in waiting if self.risky.get(other, (0, 0))[1] in same]
        if waiting:
            if self._settle(waiting):
                spans, _holes = self._spans(task, start, end)
                for key, _flags in spans:
                    if key in self.maywrite:
                        self._promote(key)
            else:
                for other in waiting:
                    entry = self.risky.get(other)
                    for key in entry[2] if entry else ():
                        self._promote(key)
        # Until this thread calls again the kernel may not have run the call: a rename handled meanwhile
        # (another process's) must not take the file we just promoted for read-only (release_unmapped);
        # and an mmap another thread makes meanwhile may land in the range (_protecting).
        self.risky[task.tid] = ("mprotect", task.tgid, (), nr)
        self.protected[task.tid] = (start, end)
        return "continue"

    def _settle(self, tids) -> bool:
        """Wait until every thread of `tids` has left the mapping call we let through; False if one has not
        after CONFIRM_SECONDS (the decision then stays on the safe side)."""
        deadline = time.monotonic() + CONFIRM_SECONDS
        while not all(self._settled(tid) for tid in tids):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.0002)
        return True

    def _on_mremap(self, nid, task, a):
        """mremap can move or grow a read-only shared mapping into a range another thread is making
        writable: checked only while such a mapping exists and the process has threads."""
        if not self.maywrite or task.threads == 1:
            return "continue"
        spans, _holes = self._spans(task, a[0], a[0] + max(a[1], 1))
        keys = tuple(k for k, _f in spans if k in self.maywrite)
        if keys:
            self.risky[task.tid] = ("mremap", task.tgid, keys, self.nr_mremap)
            if self._unsettled(task, "mprotect"):
                for key in keys:
                    self._promote(key)
        return "continue"

    def _unsettled(self, task, kind) -> bool:
        """Whether another thread of this process has a call of `kind` we let through and may still be in."""
        return any(other != task.tid and tgid == task.tgid and k == kind and not self._settled(other)
                   for other, (k, tgid, _keys, _nr) in list(self.risky.items()))

    def _settled(self, tid) -> bool:
        """Has `tid` left the call we let through? Yes once it is in another call (or gone); running
        (maybe still in it) or in the same call number: not known, so no."""
        entry = self.risky.get(tid)
        if entry is None:
            return True
        state = _syscall_state(tid)
        if state in ("running", "unknown") or state == entry[3]:
            return False
        self.risky.pop(tid, None)
        return True

    def _promote(self, key):
        """A read-only mapping of this file may become writable: trace it as a writable one."""
        held = self.maywrite.pop(key, None)
        if held is None:
            return
        node, dup = held
        if node in self.mapped:
            os.close(dup)
            return
        self.mapped[node] = [dup, self._contents(dup)]
        self._record(Event("mapped", node=node, path=_name(dup)))

    def _mapped_keys(self) -> set:
        return {_key(os.fstat(dup)) for dup, _shadow in self.mapped.values()}

    def _spans(self, task, start, end):
        """The shared file mappings on the roots' file systems in [start, end) of the task, as
        ((major, minor, inode), VmFlags or None), and whether part of the range is not mapped."""
        try:
            with open(f"/proc/{task.tid}/smaps", "rb") as f:
                text = f.read()
        except OSError:
            raise Refused(errno.ESRCH) from None
        devs = {(os.major(d), os.minor(d)) for d in self.root_devs}
        found, covered, current = [], [], None
        for line in text.splitlines():
            fields = line.split(None, 5)
            if fields and b"-" in fields[0] and len(fields) >= 5 and fields[0][:1] not in (b"V",):
                try:
                    lo, hi = (int(x, 16) for x in fields[0].split(b"-"))
                except ValueError:
                    continue
                current = None
                if hi <= start or lo >= end:
                    continue
                covered.append((max(lo, start), min(hi, end)))
                major, minor = (int(x, 16) for x in fields[3].split(b":"))
                if fields[1][3:4] == b"s" and fields[4] != b"0" and (major, minor) in devs:
                    current = [(major, minor, int(fields[4])), None]
                    found.append(current)
            elif line.startswith(b"VmFlags:") and current is not None:
                current[1] = line[8:]
        covered.sort()
        at, holes = start, False
        for lo, hi in covered:
            if lo > at:
                holes = True
            at = max(at, hi)
        holes = holes or at < end
        return [(k, f) for k, f in found], holes

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

    def _nameless(self, st) -> bool:
        """A file with no name left that can never get one again (linkat refuses it unless it was
        opened O_TMPFILE without O_EXCL): what is stored in it reaches no crash state."""
        return st.st_nlink == 0 and self.nodes.get((st.st_dev, st.st_ino)) not in self.linkable

    def capture_mapped(self):
        """Record what the stores through shared mappings changed since we last looked. A mapped file
        whose last name went (mapped, then unlinked) is dropped: nothing in it can be judged."""
        for node, entry in list(self.mapped.items()):
            if self._nameless(os.fstat(entry[0])):
                del self.mapped[node]
                os.close(entry[0])
                self._record(Event("unmapped", node=node))
                continue
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

    def release_unmapped(self):
        """Before a call that may give a file a new name (rename, link, symlink): every mapped file no
        process of the run maps any more is captured one last time and dropped ("unmapped"); stores
        can then reach it only through a new mmap, which we see. One still mapped stays, and the
        judge sees it mapped wherever it is the checkpoint; one mapped only read-only now is dropped the
        same way and kept for an mprotect to upgrade. Read-only mappings no process holds any more are
        forgotten (nothing is left for an mprotect to upgrade)."""
        if not self.mapped and not self.maywrite:
            return
        held = self._shared_maps()
        if held is None:
            return  # a process of the run we could not read: every mapping is assumed alive
        flying = set(self.in_flight.values())
        # A thread still in an mprotect we let through may be making a read-only mapping writable.
        protecting = any(kind == "mprotect" and not self._settled(tid)
                         for tid, (kind, _tgid, _keys, _nr) in list(self.risky.items()))
        for node, (dup, _shadow) in list(self.mapped.items()):
            key = _key(os.fstat(dup))
            if node in flying or held.get(key) or (key in held and protecting):
                continue
            self.capture_mapped()  # stores made after this call's first capture and before the munmap
            del self.mapped[node]
            self._record(Event("unmapped", node=node))
            if key in held and key not in self.maywrite:
                # Still mapped, but only read-only now (an mprotect took PROT_WRITE away, or the
                # process that made it writable is gone): it stores nothing until an mprotect adds
                # PROT_WRITE again, and that call is ours (_protect promotes it back).
                self.maywrite[key] = (node, dup)
            else:
                os.close(dup)
        mapping = {k for _kind, _tgid, keys, _nr in self.risky.values() for k in keys}  # files, not nodes
        for key, (node, dup) in list(self.maywrite.items()):
            if held.get(key):
                # Writable now, yet no call we saw made it so: traced from here on, and the judge sees
                # the file mapped (stores so far were not seen), whatever comes next.
                self._promote(key)
            elif key not in held and key not in mapping:
                del self.maywrite[key]  # no read-only mapping of it left to upgrade
                os.close(dup)

    def _shared_maps(self) -> dict | None:
        """(major, minor, inode) of every shared file mapping of the run's processes -> whether one of
        them is writable now (its protection, as /proc/PID/maps shows it), or None when that cannot be
        told. The processes are listed before and after their maps are read, until both
        lists agree: a process gains a mapping only by its own mmap (which we see) or by being forked
        from one that has it, so a relay of processes that fork and then unmap, each ahead of our
        reading, shows up as a process the first list did not have."""
        for _attempt in range(4):
            before = self._run_pids()
            if before is None:
                return None
            held: dict = {}
            for pid in before:
                try:
                    lines = _maps(pid)
                except (FileNotFoundError, ProcessLookupError):
                    continue  # gone meanwhile: it maps nothing
                except OSError:
                    return None
                for line in lines:
                    fields = line.split(None, 5)
                    if len(fields) < 5 or fields[1][3:4] != b"s" or fields[4] == b"0":
                        continue
                    major, minor = (int(x, 16) for x in fields[3].split(b":"))
                    key = (major, minor, int(fields[4]))
                    held[key] = held.get(key, False) or fields[1][1:2] == b"w"
            after = self._run_pids()
            if after is not None and after <= before:
                return held
        return None  # still forking as we read: every mapping is assumed alive

    def _run_pids(self) -> set | None:
        """The run's processes. Reduced mode: its process group (setsid and setpgid never run there);
        under bubblewrap the run is alone with us, its init and the warm interpreter in its PID
        namespace, with our uid."""
        pids, self_uid = set(), os.getuid()
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            pid = int(entry)
            if pid == self.self_pid or pid in self.spared or (not self.reduced and pid == 1):
                continue
            try:
                if self.reduced:
                    with open(f"/proc/{pid}/stat", "rb") as f:
                        if int(f.read().rsplit(b")", 1)[1].split()[2]) != self.child_pgid:
                            continue
                elif os.stat(f"/proc/{pid}").st_uid != self_uid:
                    continue  # only a test drives us outside a sandbox, among other users' processes
            except (FileNotFoundError, ProcessLookupError):
                continue
            except (OSError, IndexError, ValueError):
                return None
            pids.add(pid)
        return pids

    def close_mappings(self):
        """End of the run: the last stores, then our duplicates closed."""
        try:
            self.capture_mapped()
        except (Stop, OSError):
            pass
        for dup, _shadow in self.mapped.values():
            os.close(dup)
        self.mapped.clear()
        for _node, dup in self.maywrite.values():
            os.close(dup)
        self.maywrite.clear()


def _maps(pid: int) -> list[bytes]:
    """The lines of a process's /proc maps. Empty when its first thread has exited (the kernel reads
    that thread's memory, gone): then another thread's, which shares the same memory."""
    with open(f"/proc/{pid}/maps", "rb") as f:
        lines = f.read().splitlines()
    if lines:
        return lines
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/maps", "rb") as f:
                lines = f.read().splitlines()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if lines:
            return lines
    return []


def _syscall_state(tid):
    """What /proc/<tid>/syscall says: the number of the call the thread is blocked in (-1: blocked
    outside one), "running" (maybe still in the call we let through), None when the thread is gone,
    "unknown" when it cannot be read (never taken for "left the call")."""
    try:
        with open(f"/proc/{tid}/syscall", "rb") as f:
            first = f.read().split(None, 1)[:1]
    except (FileNotFoundError, ProcessLookupError):
        return None
    except OSError:
        return "unknown"
    if not first:
        return None
    if first[0] == b"running":
        return "running"
    try:
        return int(first[0])
    except ValueError:
        return "unknown"


def _in_vfork(tid, nr_vfork, nr_clone) -> bool:
    """Whether thread `tid` waits in vfork, or in clone with CLONE_VM (posix_spawn's), for a child running
    in its memory."""
    try:
        with open(f"/proc/{tid}/syscall", "rb") as f:
            fields = f.read().split()
        nr = int(fields[0])
    except (OSError, ValueError, IndexError):
        return False
    if nr == nr_vfork:
        return True
    try:
        return nr == nr_clone and bool(int(fields[1], 16) & CLONE_VM)
    except (ValueError, IndexError):
        return False


def _children(pid, tid) -> set:
    try:
        with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
            return {int(x) for x in f.read().split()}
    except (OSError, ValueError):
        return set()


def _key(st) -> tuple:
    """A file as /proc/<pid>/maps names it: (major, minor, inode)."""
    return (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)


def _name(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return ""


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
