"""multiprocessing with the spawn and forkserver start methods (fresh interpreters, where the
student's module is not a file to import): an honest program sending functions, classes and
instances of its own file to workers grades like with fork, and a spawn worker that rewrites the
checkpoint in place is traced and fails. Both modes; no process left after the CLI."""

from __future__ import annotations

import pytest

from advkit import CODE_CRITERIA, ISOLATION_MODES, brief, by_file, crit, make_arena, mode_args, mode_id, report, run_cli


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def methods(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("methods"))
    files = [arena.render("mp_start_methods_honest"), arena.render("mp_spawn_worker_inplace")]
    run = run_cli(arena, files, *mode_args(request.param), "--timeout", "60", timeout=400)
    return arena, run, files


def test_honest_spawn_and_forkserver_pass(methods):
    _arena, run, files = methods
    entry = by_file(report(run, files))["mp_start_methods_honest.py"]
    assert all(crit(entry, cid)["passed"] for cid in CODE_CRITERIA), brief(entry)


def test_spawn_worker_writing_in_place_fails(methods):
    _arena, run, files = methods
    entry = by_file(report(run, files))["mp_spawn_worker_inplace.py"]
    assert crit(entry, "executavel")["passed"], brief(entry)
    assert not crit(entry, "escrita-atomica")["passed"], brief(entry)


def test_no_process_left(methods):
    _arena, run, _files = methods
    assert run.leftovers == [], run.leftovers[:3]
