"""Class 8: a submission exhausts resources or sets traps for the judge.

Memory hog (which passes if --memory is not enforced), 400 MB of disk plus a sparse 50 GB
checkpoint.json, infinite loops (in run_agent, ignoring signals; at load), recursion that
overflows the C stack, and checkpoint.json left as a FIFO, a link to /dev/zero or stdin, a
link loop, a directory, beside 20 000 files or 400 folders deep. With --timeout 10 the batch
finishes in reasonable time, the siblings pass, the attacks fail, no file is left behind.
"""

from __future__ import annotations

import pytest

from advkit import (
    MODES, assert_forged_nothing, assert_sibling_passes, by_file, make_arena, mode_args, mode_id, report, run_cli,
)

HOGS = ["res_memory", "res_disk", "res_infinite_loop", "res_loop_at_load", "res_recursion"]
TRAPS = ["fifo", "devzero", "stdin", "loop", "directory", "many", "deep"]


@pytest.fixture(scope="module", params=MODES, ids=mode_id)
def exhausted(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("resources"))
    files = [arena.sibling()]
    files += [arena.render(name) for name in HOGS]
    files += [arena.render("res_judge_traps", f"trap_{kind}.py", kind=kind) for kind in TRAPS]
    files += [arena.sibling("vizinho_2.py")]
    run = run_cli(arena, files, *mode_args(request.param), "--timeout", "10", "--memory", "512", timeout=300)
    return arena, run, files, arena.litter()


def test_batch_finishes_in_reasonable_time(exhausted):
    arena, run, files, _ = exhausted
    assert not run.timed_out and run.elapsed < 200, run.describe()


def test_report_lists_every_file(exhausted):
    arena, run, files, _ = exhausted
    report(run, files)


def test_siblings_still_pass(exhausted):
    arena, run, files, _ = exhausted
    data = report(run, files)
    assert_sibling_passes(data, files[0])
    assert_sibling_passes(data, files[-1])


@pytest.mark.parametrize("name", HOGS + [f"trap_{k}" for k in TRAPS])
def test_attack_does_not_pass(exhausted, name):
    arena, run, files, _ = exhausted
    entry = by_file(report(run, files))[f"{name}.py"]
    assert entry["passed"] is False, f"{name} passed (a limit was not enforced?)"
    if name != "res_memory" and not name.startswith("trap_"):
        assert_forged_nothing(entry)


def test_no_big_files_or_processes_left(exhausted):
    arena, run, files, litter = exhausted
    assert litter == [] and run.leftovers == [], (litter, run.leftovers)
