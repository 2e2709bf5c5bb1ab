"""Handlers that check a call and let it through or refuse it: prctl(PR_SET_SECCOMP), what reaches
another process (kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_open, fcntl F_SETOWN,
prlimit64, its scheduling and I/O priority), and the calls the filter hands over only to be refused (io_uring, ptrace, namespaces...)."""

from __future__ import annotations

import errno

from .errors import Refused
from .linux import CLONE_NEW, U32, s32
from .seccomp import IOPRIO_WHO_PGRP, IOPRIO_WHO_USER, METADATA, PRIO_PGRP, PRIO_USER, REFUSED


class Checks:
    """Supervisor mixin: the calls checked, not emulated."""

    def _on_prctl(self, nid, task, a):
        raise Refused(errno.EPERM, "prctl", "instalar outro filtro seccomp (prctl): ele tiraria do corretor a visão das chamadas")

    def _signal_target(self, task, pid: int) -> bool:
        pid = s32(pid)
        if pid == -1:
            return False
        if pid == 0:
            return True
        target = abs(pid)
        if target in (1, self.self_pid, self.self_pgid) or target in self.spared:
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
        pid = s32(a[0])
        if self.reduced and pid < -1 and not self.vgroups and abs(pid) != self.child_pgid:
            raise Refused(errno.ESRCH)  # no such group in the run, as bubblewrap's run would see it
        if self.reduced and self.vgroups and (pid == 0 or pid < -1):
            return self.signal_group(task, pid, s32(a[1]))  # groups.py: the groups the run made
        return "continue" if self._signal_target(task, a[0]) else self._deny_signal()

    def _on_one_process(self, nid, task, a):
        """A call that names one process (or thread) by its first argument: never a group, never 0."""
        return "continue" if s32(a[0]) > 0 and self._signal_target(task, a[0]) else self._deny_signal()

    _on_tkill = _on_tgkill = _on_pidfd_open = _on_rt_sigqueueinfo = _on_rt_tgsigqueueinfo = _on_one_process

    def _on_fcntl(self, nid, task, a):
        """F_SETOWN only (the filter's rule): whoever gets the descriptor's SIGIO, a process or a group."""
        return "continue" if s32(a[2]) == 0 or self._signal_target(task, a[2]) else self._deny_signal()

    def _other_process(self, task, pid):
        """Another process's limits or scheduling (the filter lets pid 0, the caller itself, through)."""
        return "continue" if s32(pid) > 0 and self._signal_target(task, pid) else self._deny_signal()

    def _on_prlimit64(self, nid, task, a):
        return self._other_process(task, a[0])

    _on_sched_setscheduler = _on_sched_setparam = _on_sched_setaffinity = _on_sched_setattr = _on_prlimit64

    def _priority(self, task, which, who, group, user):
        """setpriority and ioprio_set: a process, a process group (0: the caller's), never a whole user."""
        who = s32(who)
        if which == user:
            return self._deny_signal()
        if which == group:
            return "continue" if who == 0 or (who > 0 and self._signal_target(task, -who)) else self._deny_signal()
        return self._other_process(task, who) if who else "continue"

    def _on_setpriority(self, nid, task, a):
        return self._priority(task, a[0] & U32, a[1], PRIO_PGRP, PRIO_USER)

    def _on_ioprio_set(self, nid, task, a):
        return self._priority(task, a[0] & U32, a[1], IOPRIO_WHO_PGRP, IOPRIO_WHO_USER)

    def _deny_signal(self):
        raise Refused(errno.EPERM)


def _make_refusal(name, message):
    def handler(self, nid, task, a):
        raise Refused(errno.EPERM, name, message)
    return handler


for _name, _message in REFUSED.items():
    setattr(Checks, "_on_" + _name, _make_refusal(_name, f"{_message}: recusado pelo corretor"))


def _on_clone(self, nid, task, a):
    """Only the clones seccomp.py hands over: into new namespaces, or in our memory as another's child."""
    if any(a[0] & bit for bit in CLONE_NEW):
        raise Refused(errno.EPERM, "clone", "criar namespaces (clone com CLONE_NEW…): recusado pelo corretor")
    raise Refused(errno.EPERM, "clone", "criar um processo que divide a memória com outro sem ser filho dele "
                                        "(clone com CLONE_VM e CLONE_PARENT): recusado pelo corretor")


Checks._on_clone = _on_clone
for _name in METADATA:
    setattr(Checks, "_on_" + _name, lambda self, nid, task, a, _n=_name: self._metadata(nid, task, a, _n))

