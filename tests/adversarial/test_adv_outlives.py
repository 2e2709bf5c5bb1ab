"""A process of the submission outlives run_agent: the run lasts until its last process ends, within
the time limit; one still alive then is killed (nothing left after the CLI), and the verdict says so
in Portuguese. The run did not end in time, so "roda até o fim" fails (what the process would write
next is unknown), while what it did until then is judged as usual. Both isolation modes."""

from __future__ import annotations

import pytest

from advkit import CODE_CRITERIA, ISOLATION_MODES, assert_sibling_passes, by_file, crit, make_arena, mode_args, mode_id, report, run_cli

LIMIT = 3


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def outlived(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("outlive"))
    files = [arena.render("outlive_sleeper"), arena.sibling()]
    run = run_cli(arena, files, *mode_args(request.param), "--timeout", str(LIMIT), timeout=180)
    return arena, run, files


def test_sleeper_is_killed_at_the_limit_and_the_verdict_says_so(outlived):
    arena, run, files = outlived
    entry = by_file(report(run, files))["outlive_sleeper.py"]
    runs = crit(entry, "executavel")
    assert not runs["passed"], entry
    assert "ainda estava vivo" in runs["message"] and f"({LIMIT} s)" in runs["message"], entry
    # Everything it wrote before the limit was judged as usual: it saved right until then.
    assert all(crit(entry, cid)["passed"] for cid in CODE_CRITERIA if cid != "executavel"), entry
    assert_sibling_passes(report(run, files), files[-1])
    assert "hint" not in crit(by_file(report(run, files))[files[-1].name], "executavel")


def test_no_process_outlives_the_cli(outlived):
    arena, run, files = outlived
    assert run.leftovers == [], run.leftovers[:3]
    assert run.elapsed >= LIMIT  # the run waited for its last process, up to the limit
