"""Red team: a named pipe outside the work folders, reached by an O_PATH open (which the kernel runs:
it writes nothing) and then reopened for writing through /proc/self/fd/N. The supervisor reopened
pipes and devices itself, wherever they were, outside the submission's Landlock domain: in reduced
mode a submission wrote into a pipe of the instructor's. It may reopen only an anonymous pipe, one of
the devices every run may write (/dev/null...) or a file of the work folders."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from advkit import (ISOLATION_MODES, assert_forged_nothing, assert_sibling_passes, brief, by_file, crit,
                    make_arena, mode_args, mode_id, report, run_cli)


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def piped(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("redteam-fifo"))
    # In a folder anyone may enter (pytest's own is its user's only), as an instructor's pipe may be.
    folder = tempfile.mkdtemp(prefix="redteam-fifo-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    os.chmod(folder, 0o755)
    fifo = os.path.join(folder, "fila")
    os.mkfifo(fifo, 0o666)
    os.chmod(fifo, 0o666)
    # A reader holds the pipe open, so a writer's non-blocking open succeeds and its bytes stay here.
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    files = [arena.render("redteam_fifo_outside", fifo=fifo), arena.sibling()]
    try:
        run = run_cli(arena, files, *mode_args(request.param))
        try:
            received = os.read(reader, 4096)
        except BlockingIOError:
            received = b""
    finally:
        os.close(reader)
        shutil.rmtree(folder)
    return arena, run, files, received


def test_nothing_reaches_the_pipe_outside(piped):
    _arena, _run, _files, received = piped
    assert received == b"", received


def test_graded_as_the_starter_and_the_sibling_passes(piped):
    _arena, run, files, _received = piped
    data = report(run, files)
    entry = by_file(data)["redteam_fifo_outside.py"]
    assert_forged_nothing(entry)
    assert crit(entry, "executavel")["passed"], brief(entry)
    assert_sibling_passes(data, files[-1])
    assert run.leftovers == []
