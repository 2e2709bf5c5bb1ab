"""Red team: an open file shared by a parent and its forked child. The kernel writes at the open file's
position, and appends when its O_APPEND flag is set, both read at the moment of writing; the child
can change both (lseek, fcntl F_SETFL) at any time, with no call the grader sees. The supervisor read
the position, then wrote with a plain write: the bytes landed wherever the child had moved things
meanwhile, not where the trace said, and the run failed escrita-atomica for "a path the grader does
not follow" (or, under a hostile plan, a trace that differs from the disk). Now each write goes
exactly where it is recorded (pwritev2 with RWF_NOAPPEND, then the position moved past it)."""

from __future__ import annotations

import pytest

from advkit import CODE_CRITERIA, ISOLATION_MODES, brief, by_file, crit, make_arena, mode_args, mode_id, report, run_cli


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def raced(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("shared-open-file"))
    files = [arena.render("race_shared_open_file", count=600)]
    run = run_cli(arena, files, *mode_args(request.param), "--timeout", "60", timeout=300)
    return run, files


def test_the_trace_says_where_every_write_landed(raced):
    run, files = raced
    entry = by_file(report(run, files))["race_shared_open_file.py"]
    assert "error" not in entry, brief(entry)
    failed = {c: crit(entry, c)["message"] for c in CODE_CRITERIA if not crit(entry, c)["passed"]}
    assert not failed, failed
    assert run.leftovers == []
