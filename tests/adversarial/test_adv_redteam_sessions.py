"""New sessions and process groups: an honest tool that starts a helper with start_new_session or
process_group=0 (or calls setsid itself), and then signals it by its group, grades the same in both modes, and a daemon that leaves its
session to rewrite the checkpoint in place after run_agent returned is still traced and fails.
Checked from outside: verdicts, and no process of the runs left after the CLI."""

from __future__ import annotations

import pytest

from advkit import CODE_CRITERIA, ISOLATION_MODES, brief, by_file, crit, make_arena, mode_args, mode_id, report, run_cli


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def sessions(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("sessions"))
    files = [arena.render("session_tool_honest"), arena.render("session_daemon_inplace"),
             arena.render("session_group_signals")]
    run = run_cli(arena, files, *mode_args(request.param), "--timeout", "20", timeout=240)
    return arena, run, files


def test_honest_new_session_tool_passes(sessions):
    _arena, run, files = sessions
    entry = by_file(report(run, files))["session_tool_honest.py"]
    assert all(crit(entry, cid)["passed"] for cid in CODE_CRITERIA), brief(entry)


def test_groups_the_run_made_answer_as_linux_does(sessions):
    """getpgid/getsid/getpgrp and signals to a group, after start_new_session or process_group=0:
    the same answers in both modes (reduced mode's groups are kept by the supervisor)."""
    _arena, run, files = sessions
    entry = by_file(report(run, files))["session_group_signals.py"]
    assert all(crit(entry, cid)["passed"] for cid in CODE_CRITERIA), brief(entry)


def test_daemon_that_left_its_session_is_judged(sessions):
    _arena, run, files = sessions
    entry = by_file(report(run, files))["session_daemon_inplace.py"]
    assert not crit(entry, "escrita-atomica")["passed"], brief(entry)
    assert crit(entry, "executavel")["passed"], brief(entry)


def test_no_process_left(sessions):
    _arena, run, _files = sessions
    assert run.leftovers == [], run.leftovers[:3]
