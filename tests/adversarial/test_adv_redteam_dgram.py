"""Red team: a UNIX datagram socket of the machine, reached without connect (which the filter
refuses): sendto and sendmsg carry the address with each datagram. In reduced mode, Landlock and the
other user did not stop it (a socket anyone may write, as journald's /dev/log is), so a submission's
datagrams reached a service of the host. UNIX datagram sockets are refused in both modes."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile

import pytest

from advkit import (ISOLATION_MODES, assert_forged_nothing, assert_sibling_passes, brief, by_file, crit,
                    make_arena, mode_args, mode_id, report, run_cli)


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def sent(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("redteam-dgram"))
    folder = tempfile.mkdtemp(prefix="redteam-dgram-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    os.chmod(folder, 0o755)
    path = os.path.join(folder, "log.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(path)
    os.chmod(path, 0o666)
    listener.setblocking(False)
    files = [arena.render("redteam_dgram", socket=path), arena.sibling()]
    received = []
    try:
        run = run_cli(arena, files, *mode_args(request.param))
        while True:
            try:
                received.append(listener.recv(4096))
            except BlockingIOError:
                break
    finally:
        listener.close()
        shutil.rmtree(folder)
    return arena, run, files, received


def test_nothing_reaches_the_socket(sent):
    _arena, _run, _files, received = sent
    assert received == [], received


def test_graded_as_the_starter_and_the_sibling_passes(sent):
    _arena, run, files, _received = sent
    data = report(run, files)
    entry = by_file(data)["redteam_dgram.py"]
    assert_forged_nothing(entry)
    assert crit(entry, "executavel")["passed"], brief(entry)
    assert_sibling_passes(data, files[-1])
    assert run.leftovers == []
