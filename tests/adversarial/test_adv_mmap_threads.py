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


@pytest.mark.parametrize("isolated", [True, False], ids=["estrito", "reduzido"])
def test_a_read_only_mapping_landing_while_the_supervisor_looks_is_never_left_untraced(isolated):
    """attacks/rt8_mmap_landing_race.py: a read-only shared mmap lands in the range of another thread's
    mprotect (held back by CPU hogs) just as the supervisor reads the maps, its thread already out of the
    call. Each attempt whose mapping the kernel made writable (rw-s) must be one the supervisor traced
    (it reads the file when it does: inotify sees it); the program says which it got."""
    from pathlib import Path

    from graders.judge.nivel2 import job
    from graders.sandbox.sandbox import Sandbox

    source = (Path(__file__).parent / "attacks" / "rt8_mmap_landing_race.py").read_text(encoding="utf-8")
    with Sandbox(isolated=isolated) as box:
        trace = box.run(source, "solucao.py", job(), 40)
    attempts = [line for line in trace.output.splitlines() if line.startswith("attempt ")]
    writable = [line for line in attempts if " rw-s " in line]
    assert writable, "no attempt got the kernel to make the mapping writable: the race was not run\n" + trace.output[-2000:]
    untraced = [line for line in writable if "read by no one" in line]
    assert not untraced, untraced
