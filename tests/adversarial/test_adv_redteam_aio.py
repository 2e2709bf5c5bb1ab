"""Red team: writes through Linux AIO (io_setup + io_submit) reach a file without any write call the
supervisor sees. A checkpointer that really overwrites checkpoint.json in place that way, and then
publishes the same bytes with a temporary file and os.replace, left a trace that looked atomic: a
false pass in both isolation modes. The calls must be refused, so the run can only write through
calls the trace records."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from advkit import (ISOLATION_MODES, assert_sibling_passes, brief, by_file, crit, make_arena, mode_args,
                    mode_id, report, run_cli)

HOSTILE = Path(__file__).resolve().parent / "redteam" / "hostile_aio_hidden_in_place.py"


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def aio_run(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("redteam-aio"))
    hostile = arena.subs / HOSTILE.name
    shutil.copyfile(HOSTILE, hostile)
    files = [hostile, arena.sibling()]
    return arena, run_cli(arena, files, *mode_args(request.param)), files


def test_in_place_write_through_aio_fails_escrita_atomica(aio_run):
    _arena, run, files = aio_run
    entry = by_file(report(run, files))[HOSTILE.name]
    assert "error" not in entry, brief(entry)
    assert crit(entry, "escrita-atomica")["passed"] is False, "AIO hid the in-place write: " + brief(entry)
    assert entry["passed"] is False


def test_nothing_left_and_sibling_passes(aio_run):
    arena, run, files = aio_run
    assert run.leftovers == [] and arena.changed_decoys() == []
    assert_sibling_passes(report(run, files), files[-1])
