"""Red team: System V shared memory and message queues of the machine. Creating them is refused
(shmget, msgget, semget), but an existing object is named by a small number, listed in
/proc/sysvipc: in reduced mode (no IPC namespace, and Landlock does not cover SysV IPC) a submission
attached another process's segment and wrote into it, and sent messages to its queue (any object of
the CLI's user when it runs as an ordinary user; any object open to all when it runs as root).
Every SysV call is refused: a submission can hold no object of its own to use them on."""

from __future__ import annotations

import ctypes

import pytest

from advkit import (ISOLATION_MODES, assert_forged_nothing, assert_sibling_passes, brief, by_file, crit,
                    make_arena, mode_args, mode_id, report, run_cli)

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
IPC_PRIVATE, IPC_RMID, IPC_NOWAIT = 0, 0, 0o4000


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def ipc(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("redteam-sysv"))
    # Open to all, as a shared segment of another user's program may be (the dropped user reaches it).
    shmid = libc.shmget(IPC_PRIVATE, 4096, 0o1666)
    msqid = libc.msgget(IPC_PRIVATE, 0o1666)
    assert shmid >= 0 and msqid >= 0, ctypes.get_errno()
    address = libc.shmat(shmid, None, 0)
    try:
        ctypes.memmove(address, b"ORIGINAL!", 9)
        files = [arena.render("redteam_sysv", shmid=shmid, msqid=msqid), arena.sibling()]
        run = run_cli(arena, files, *mode_args(request.param))
        segment = ctypes.string_at(address, 9)
        message = ctypes.create_string_buffer(64)
        received = libc.msgrcv(msqid, message, 48, 0, IPC_NOWAIT)
    finally:
        libc.shmdt(ctypes.c_void_p(address))
        libc.shmctl(shmid, IPC_RMID, None)
        libc.msgctl(msqid, IPC_RMID, None)
    return run, files, segment, received


def test_the_machines_ipc_objects_are_untouched(ipc):
    _run, _files, segment, received = ipc
    assert segment == b"ORIGINAL!" and received == -1, (segment, received)


def test_graded_as_the_starter_and_the_sibling_passes(ipc):
    run, files, _segment, _received = ipc
    data = report(run, files)
    entry = by_file(data)["redteam_sysv.py"]
    assert_forged_nothing(entry)
    assert crit(entry, "executavel")["passed"], brief(entry)
    assert_sibling_passes(data, files[-1])
    assert run.leftovers == []
