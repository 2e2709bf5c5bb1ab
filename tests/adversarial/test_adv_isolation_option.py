"""`--isolamento {auto,estrito,reduzido}`, seen from outside.

bwrap is made unavailable for one CLI run by running the CLI itself inside an outer
bubblewrap that binds /dev/null (missing: not executable) or /bin/false (present but
broken) over /usr/bin/bwrap; nothing else of the machine changes.
"""

from __future__ import annotations

import json
import shutil

import pytest

from advkit import SOLUTION, STARTER, make_arena, report, run_cli

BWRAP = shutil.which("bwrap") or "/usr/bin/bwrap"


def _without_bwrap(how):
    fake = {"missing": "/dev/null", "broken": "/bin/false"}[how]
    return [BWRAP, "--dev-bind", "/", "/", "--ro-bind", fake, BWRAP, "--"]


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    return make_arena(tmp_path_factory.mktemp("isolation"))


def _files(arena):
    return [arena.starter_copy(), arena.sibling()]


@pytest.mark.parametrize("how", ["missing", "broken"])
def test_estrito_refuses_without_bwrap(arena, how):
    run = run_cli(arena, _files(arena), "--isolamento", "estrito", wrapper=_without_bwrap(how), timeout=120)
    assert run.returncode == 2, run.describe()
    assert run.stdout.strip() == b"", "estrito graded anyway"
    err = run.err.lower()
    assert "erro" in err and ("bwrap" in err or "bubblewrap" in err), run.err


@pytest.mark.parametrize("how", ["missing", "broken"])
def test_auto_falls_back_with_one_warning(arena, how):
    files = _files(arena)
    run = run_cli(arena, files, wrapper=_without_bwrap(how), timeout=180)
    data = report(run, files)
    assert run.returncode == 1
    assert [e["passed"] for e in data] == [False, True]
    warnings = [line for line in run.err.splitlines() if line.strip()]
    assert len(warnings) == 1, f"expected one warning line on stderr, got: {warnings}"
    assert "reduzido" in warnings[0].lower() or "bwrap" in warnings[0].lower() or "bubblewrap" in warnings[0].lower()


def test_auto_with_working_bwrap_says_nothing(arena):
    files = _files(arena)
    run = run_cli(arena, files, timeout=180)
    assert [e["passed"] for e in report(run, files)] == [False, True]
    assert run.err.strip() == "", run.err


@pytest.mark.parametrize("mode", ["estrito", "reduzido"])
def test_explicit_modes_grade_normally(arena, mode):
    files = _files(arena)
    run = run_cli(arena, files, "--isolamento", mode, timeout=180)
    assert [e["passed"] for e in report(run, files)] == [False, True]
    assert run.returncode == 1


def test_unknown_mode_is_a_usage_error(arena):
    run = run_cli(arena, _files(arena), "--isolamento", "nenhum", timeout=60)
    assert run.returncode == 2 and run.stdout.strip() == b""
