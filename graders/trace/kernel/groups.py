"""Reduced mode's process groups and sessions: the run's one real group stays its fence (the final
kill, the reaping, the list of its processes), so setsid and setpgid change nothing in the kernel;
the supervisor keeps the groups the run believes it made and answers getpgid, getsid, getpgrp and
every signal to a group from them, as the same run would see them under bubblewrap."""

from __future__ import annotations

import errno
import os
import signal

from .errors import Refused
from .linux import s32

# Signals a process may send: 0 (a probe) up to SIGRTMAX.
MAX_SIGNAL = 64


class Groups:
    """Supervisor mixin (reduced mode). `vgroups` maps a pid to (its start time, pgid, sid) once that
    process changed its group or session, or once it was pinned: a process with no entry is in its
    parent's group, and the run's first process in the run's real group and session."""

    # what a process is ----------------------------------------------------------------------------

    def _proc_stat(self, pid: int):
        """(ppid, real pgid, start time) of a live process, or None."""
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            return int(fields[1]), int(fields[2]), int(fields[19])
        except (OSError, IndexError, ValueError):
            return None

    def _run_member(self, pid: int):
        """The /proc/<pid>/stat fields of a process of this run (its real group is the run's), or None.
        A thread id names its process, as getpgid(2) takes it."""
        if pid <= 0:
            return None
        st = self._proc_stat(pid)
        if st is None or st[1] != self.child_pgid:
            return None
        return st

    def _group_of(self, pid: int, st=None, depth: int = 0, stats: dict | None = None) -> tuple[int, int]:
        """(pgid, sid) the run believes `pid` has (`stats`: the run's processes read at once, if known)."""
        st = st or (stats.get(pid) if stats is not None else self._proc_stat(pid))
        if st is None:
            return self.child_pgid, self.child_pgid
        entry = self.vgroups.get(pid)
        if entry is not None and entry[0] == st[2]:
            return entry[1], entry[2]
        parent = st[0]
        # A process whose parent left (an orphan came back to us) keeps what it was pinned to; with
        # no pin it is counted in the run's own group.
        if depth >= 64 or pid == self.child_pgid:
            pst = None
        elif stats is not None:
            pst = stats.get(parent)
        else:
            pst = self._run_member(parent)
        if pst is None:
            return self.child_pgid, self.child_pgid
        return self._group_of(parent, pst, depth + 1, stats)

    def _run_stats(self) -> dict[int, tuple[int, int, int]]:
        """Every process of the run (its real group is the run's) -> (ppid, real pgid, start time), in
        one pass over /proc: the scan a group call may need costs one read per process."""
        stats = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != self.self_pid:
                st = self._proc_stat(int(entry))
                if st is not None and st[1] == self.child_pgid:
                    stats[int(entry)] = st
        return stats

    def _pin_groups(self) -> dict[int, tuple[int, int]]:
        """Every process of the run with its (pgid, sid), each written down so that it keeps them when
        its parent changes group or exits later (a child never follows its parent into a new group)."""
        stats = self._run_stats()
        groups = {pid: self._group_of(pid, st, stats=stats) for pid, st in stats.items()}
        for pid, (pgid, sid) in groups.items():
            self.vgroups[pid] = (stats[pid][2], pgid, sid)
        for pid in [p for p in self.vgroups if p not in groups]:
            del self.vgroups[pid]  # gone: its number may come back as another process
        return groups

    # the calls ------------------------------------------------------------------------------------

    def _on_setsid(self, nid, task, a):
        pid = task.tgid
        if self._group_of(pid)[0] == pid:
            raise Refused(errno.EPERM)  # a group leader cannot start a session (setsid(2))
        groups = self._pin_groups()
        # A pid that still leads a group (a gone leader's members) cannot be reused as one.
        if any(g == pid for g, _s in groups.values()):
            raise Refused(errno.EPERM)
        self._set_group(pid, pid, pid)
        return pid

    def _on_setpgid(self, nid, task, a):
        caller = task.tgid
        target = s32(a[0]) or caller
        pgid = s32(a[1])
        if target < 0 or pgid < 0:
            raise Refused(errno.EINVAL)
        pgid = pgid or target
        st = self._run_member(target)
        if st is None or (target != caller and st[0] != caller):
            raise Refused(errno.ESRCH)  # only the caller or one of its children (setpgid(2))
        # Answered without a scan of the machine's processes where nothing changes (a loop of these
        # would otherwise cost one scan each).
        t_pgid, t_sid = self._group_of(target, st)
        c_sid = self._group_of(caller)[1]
        if t_sid == target or t_sid != c_sid:
            raise Refused(errno.EPERM)  # a session leader, or a child in another session
        if t_pgid == pgid:
            return 0  # already there
        groups = self._pin_groups()
        if pgid != target and not any(g == pgid and s == t_sid for g, s in groups.values()):
            raise Refused(errno.EPERM)  # no such group in the target's session
        self._set_group(target, pgid, t_sid)
        return 0

    def _on_exit_group(self, nid, task, a):
        """A process of the run is exiting: once the run has groups of its own, its children's are
        written down while it still parents them (an orphan would otherwise fall back to the run's
        group). The call itself runs as it is: it has no argument to read."""
        if self.vgroups:
            self._pin_groups()
        return "continue"

    def _on_getpgid(self, nid, task, a):
        return self._asked(task, a[0])[0]

    def _on_getsid(self, nid, task, a):
        return self._asked(task, a[0])[1]

    def _on_getpgrp(self, nid, task, a):
        return self._group_of(task.tgid)[0]

    def _asked(self, task, raw) -> tuple[int, int]:
        pid = s32(raw)
        if pid == 0:
            return self._group_of(task.tgid)
        st = self._run_member(pid)
        if st is None:
            raise Refused(errno.ESRCH)  # bubblewrap's run sees no process outside itself
        tgid = _tgid(pid)
        return self._group_of(tgid) if tgid != pid else self._group_of(pid, st)

    def _set_group(self, pid: int, pgid: int, sid: int):
        st = self._proc_stat(pid)
        if st is None:
            raise Refused(errno.ESRCH)
        self.vgroups[pid] = (st[2], pgid, sid)

    def signal_group(self, task, pid: int, sig: int):
        """kill(0) or kill(-pgid) once the run has groups of its own: sent by us to each member of the
        group the run believes in (the kernel's group is the whole run), the caller last."""
        if not 0 <= sig <= MAX_SIGNAL:
            raise Refused(errno.EINVAL)
        caller = task.tgid
        own = self._group_of(caller)[0]
        target = own if pid == 0 else -pid
        if sig == 0 and target == own:
            return 0  # a probe of the caller's own group, which holds the caller: no scan needed
        groups = self._pin_groups()
        members = sorted((p for p, (g, _s) in groups.items() if g == target), key=lambda p: p == caller)
        if not members:
            raise Refused(errno.ESRCH)
        sent = False
        for member in members:
            # By pidfd, checked after it is opened: a member gone meanwhile whose number went to a
            # process outside the run is never signalled (we signal with the supervisor's rights).
            try:
                fd = os.pidfd_open(member)
            except OSError:
                continue
            try:
                if self._run_member(member) is not None:
                    signal.pidfd_send_signal(fd, sig)
                    sent = True
            except ProcessLookupError:
                pass
            finally:
                os.close(fd)
        if not sent:
            raise Refused(errno.ESRCH)
        return 0


def _tgid(tid: int) -> int:
    try:
        with open(f"/proc/{tid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"Tgid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return tid
