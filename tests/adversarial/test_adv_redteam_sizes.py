"""Red team: a file of the run made huge without its bytes being written (a one-byte write a terabyte
past the end, a truncate to a terabyte, a preallocation of hundreds of megabytes). The supervisor
makes these calls itself, so the run's own file-size limit never applied, and the grader's write
limit counts only bytes written: the replay, which holds every file in memory, died of MemoryError
("erro interno do corretor") and a few gigabytes would have filled the machine's memory or disk. A
file of the work folders may not reach past the write limit (`--max-escrita`), and growing it counts
as writing: the run stops as "limite do corretor", in both modes."""

from __future__ import annotations

import pytest

from advkit import ISOLATION_MODES, assert_forged_nothing, assert_sibling_passes, make_arena, mode_args, mode_id, report, run_cli

HOWS = ["pwrite", "ftruncate", "truncate", "fallocate"]


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def grown(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("redteam-sizes"))
    files = [arena.render("redteam_size", f"redteam_size_{how}.py", how=how) for how in HOWS] + [arena.sibling()]
    return arena, run_cli(arena, files, *mode_args(request.param)), files


@pytest.mark.parametrize("how", HOWS)
def test_stopped_by_the_write_limit(grown, how):
    _arena, run, files = grown
    entry = report(run, files)[HOWS.index(how)]
    assert entry.get("limit") is True and entry["error"].startswith("limite do corretor"), entry.get("error")
    assert_forged_nothing(entry)


def test_sibling_passes_and_nothing_is_left(grown):
    arena, run, files = grown
    assert_sibling_passes(report(run, files), files[-1])
    assert run.leftovers == [] and arena.changed_decoys() == []
