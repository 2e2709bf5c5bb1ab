"""Red team: what a run leaves in its folders must not stop the grading. Folders nested deeper than
Python's recursion limit made shutil.rmtree crash: the sandbox server died emptying the roots (the
run reported as the grader's failure, "não é culpa do código") and the CLI crashed on the abandoned
folder, with no report, then again at every later start on the same machine. A removal that failed
was retried with chmod 0700 on the failing entry's parent folder: for the top folder itself that is
the machine's /tmp or /dev/shm (closed to every other user when the CLI ran as root). The roots are
now emptied without recursion and without touching anything above them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import no_namespaces
from advkit import ISOLATION_MODES, assert_forged_nothing, assert_sibling_passes, brief, by_file, make_arena, mode_args, mode_id, report, run_cli
from conftest import ROOT

SETUPS = [*ISOLATION_MODES, "sem-dac-override"]
SHARED = ("/tmp", "/dev/shm")


def _modes():
    return {p: os.stat(p).st_mode for p in SHARED if os.path.isdir(p)}


@pytest.fixture(scope="module", params=SETUPS, ids=lambda m: m if m == "sem-dac-override" else mode_id(m))
def left_behind(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("redteam-deep"))
    before = _modes()
    # One sandbox: the sibling is graded right after the attack, in the roots the attack left.
    files = [arena.render("redteam_deep_tree"), arena.sibling()]
    if request.param == "sem-dac-override":
        prefix = ([shutil.which("setpriv"), "--bounding-set=-setuid,-setgid,-dac_override,-fowner"]
                  if os.getuid() == 0 else [])
        run = run_cli(arena, files, jobs=1, wrapper=[*prefix, *no_namespaces.wrapper()])
    else:
        run = run_cli(arena, files, *mode_args(request.param), jobs=1)
    # The next start of the CLI on this machine sweeps what earlier ones abandoned.
    after = subprocess.run([sys.executable, "-m", "graders", "nivel-2", str(files[-1]), "--format", "json"],
                           cwd=ROOT, capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
    return run, files, before, _modes(), after


def test_graded_and_the_next_submission_too(left_behind):
    run, files, _before, _after_modes, _next = left_behind
    data = report(run, files)
    entry = by_file(data)["redteam_deep_tree.py"]
    assert "o processo de correção falhou" not in brief(entry), brief(entry)
    assert_forged_nothing(entry)
    assert_sibling_passes(data, files[-1])
    assert run.leftovers == []


def test_shared_folders_keep_their_modes(left_behind):
    _run, _files, before, after, _next = left_behind
    assert after == before, {p: (oct(before[p]), oct(after[p])) for p in before}


def test_the_next_start_grades(left_behind):
    _run, _files, _before, _after, after = left_behind
    assert after.returncode == 0, after.stderr[-1500:]
    assert json.loads(after.stdout)["submissions"][0]["passed"] is True
