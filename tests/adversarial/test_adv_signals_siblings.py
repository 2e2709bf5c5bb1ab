"""Class 3: a submission signals other processes: the grader, its siblings, everyone.

attacks/signal_siblings.py sends SIGKILL (one CLI run) or SIGSTOP/SIGTERM/SIGINT/SIGHUP
(another) to kill(-1) (only inside a PID namespace), its parent, process groups, and every
process of the grading it can find in /proc, through os.kill and pidfd_send_signal. The
sibling solution must still pass and the CLI must print the full report, in time.
"""

from __future__ import annotations

import pytest

from advkit import (
    MODES, assert_forged_nothing, assert_sibling_passes, by_file, make_arena, mode_args, mode_id, report, run_cli,
)

SIGNAL_SETS = {"kill": "SIGKILL", "stop": "SIGSTOP,SIGTERM,SIGINT,SIGHUP,SIGUSR1"}


@pytest.fixture(scope="module", params=[(m, s) for m in MODES for s in SIGNAL_SETS],
                ids=lambda p: f"{mode_id(p[0])}-{p[1]}")
def signalled(request, tmp_path_factory):
    mode, kind = request.param
    arena = make_arena(tmp_path_factory.mktemp("signals"))
    sibling = arena.sibling()
    # The sibling goes first and twice, so that it is being graded while the attack runs.
    second = arena.sibling("vizinho_2.py")
    files = [sibling, arena.render("signal_siblings", signals=SIGNAL_SETS[kind]), second]
    run = run_cli(arena, files, *mode_args(mode), timeout=30 if kind == "stop" else 90)
    return arena, run, files


def test_cli_prints_the_full_report(signalled):
    arena, run, files = signalled
    report(run, files)


def test_siblings_still_pass(signalled):
    arena, run, files = signalled
    data = report(run, files)
    assert_sibling_passes(data, files[0])
    assert_sibling_passes(data, files[2])


def test_attack_does_not_pass(signalled):
    arena, run, files = signalled
    assert_forged_nothing(by_file(report(run, files))["signal_siblings.py"])
