"""Writable shared mappings with other threads running are traced, not refused (the supervisor
confirms in the process's maps which file the kernel mapped before it handles anything else); a
thread that swaps the descriptor under the mmap to reach checkpoint.json untraced never passes
escrita-atomica. Both isolation modes; the honest sibling passes."""

from __future__ import annotations

import pytest

from advkit import ISOLATION_MODES, assert_sibling_passes, brief, by_file, crit, make_arena, mode_args, mode_id, report, run_cli


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def raced(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("mmapswap"))
    files = [arena.render("race_mmap_swap"), arena.sibling()]
    run = run_cli(arena, files, *mode_args(request.param), "--timeout", "20", timeout=240)
    return arena, run, files


def test_swapped_mapping_never_passes(raced):
    arena, run, files = raced
    entry = by_file(report(run, files))["race_mmap_swap.py"]
    assert not crit(entry, "escrita-atomica")["passed"], brief(entry)
    assert_sibling_passes(report(run, files), files[-1])


def test_no_process_left(raced):
    arena, run, files = raced
    assert run.leftovers == []
