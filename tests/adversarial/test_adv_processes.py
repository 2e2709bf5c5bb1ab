"""Class 2: a submission starts other processes.

attacks/proc_spawn.py: os.system, subprocess (also with sys.audit swapped for a no-op),
fork+exec, a setsid double fork, posix_spawn; each tries to write a decoy outside the folder
and to leave a detached sleeper (its argv[0] carries the test's unique marker).
attacks/proc_fork_bomb.py: 200 forks. Effects: decoys unchanged, no marked process alive
after the CLI returned, the batch finishes, the sibling passes.
"""

from __future__ import annotations

import pytest

from advkit import (
    ISOLATION_MODES, assert_forged_nothing, assert_sibling_passes, by_file, make_arena, mode_args, mode_id, report, run_cli,
)


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def spawned(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("procs"))
    files = [arena.render("proc_spawn"), arena.render("proc_fork_bomb"), arena.sibling()]
    run = run_cli(arena, files, *mode_args(request.param), "--timeout", "20", timeout=180)
    return arena, run, files


def test_report_lists_every_file(spawned):
    arena, run, files = spawned
    report(run, files)


def test_no_process_outlives_the_cli(spawned):
    arena, run, files = spawned
    assert run.leftovers == [], f"{len(run.leftovers)} processes still alive, e.g. {run.leftovers[:3]}"


def test_spawned_programs_wrote_nothing_outside(spawned):
    arena, run, files = spawned
    assert arena.changed_decoys() == [] and arena.new_entries() == [], arena.changed_decoys() + arena.new_entries()


def test_batch_is_not_held_up(spawned):
    arena, run, files = spawned
    assert not run.timed_out and run.elapsed < 120, run.describe()


def test_sibling_still_passes(spawned):
    arena, run, files = spawned
    assert_sibling_passes(report(run, files), files[-1])


def test_spawner_does_not_pass(spawned):
    arena, run, files = spawned
    assert_forged_nothing(by_file(report(run, files))["proc_spawn.py"])
