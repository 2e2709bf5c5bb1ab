"""Reduced mode's look thread (graders/trace/kernel/lookthread.py): fenced itself, per thread, while
the thread that made it keeps its own rights; results and exceptions cross back to the caller."""

from __future__ import annotations

import errno
import os
import threading

import pytest

from graders.trace.kernel import landlock
from graders.trace.kernel.lookthread import LookThread


def _open(path):
    try:
        os.close(os.open(path, os.O_RDONLY))
        return "ok"
    except OSError as exc:
        return errno.errorcode[exc.errno]


def _capabilities():
    with open("/proc/thread-self/status", "rb") as f:
        return {line.split(b":")[0]: int(line.split()[1], 16) for line in f if line.startswith(b"Cap")}


def test_the_thread_is_fenced_and_its_creator_is_not():
    if landlock.abi() is None:
        pytest.skip("kernel sem Landlock")
    fence = landlock.ruleset(["/usr"], [], {})
    thread = LookThread(fence[0])
    try:
        assert thread.fenced["landlock"] is True
        assert thread.call(_open, "/usr/bin/env") == "ok"
        assert thread.call(_open, "/etc/hostname") == "EACCES"  # outside its rules
        assert _open("/etc/hostname") == "ok"  # the supervisor's own thread is untouched
        assert thread.call(threading.get_ident) != threading.get_ident()
        with pytest.raises(ZeroDivisionError):
            thread.call(lambda: 1 / 0)
        assert thread.call(_open, "/etc/hostname") == "EACCES"  # still fenced after an exception
    finally:
        thread.close()
        os.close(fence[0])


@pytest.mark.skipif(os.geteuid() != 0, reason="só quem é root tem capacidades a perder")
def test_as_root_the_thread_holds_no_capability():
    thread = LookThread(None)
    try:
        caps = thread.call(_capabilities)
        assert caps[b"CapEff"] == caps[b"CapPrm"] == caps[b"CapBnd"] == 0, caps
        assert thread.fenced["capabilities_dropped"] is True and thread.same_rights is False
        assert _capabilities()[b"CapEff"] != 0  # the creator keeps its own
    finally:
        thread.close()
