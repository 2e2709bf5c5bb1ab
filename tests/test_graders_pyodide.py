"""The same corpus, graded by the same graders inside Pyodide (Node, offline), gets the same verdicts."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from conftest import ROOT
from corpus_cases import all_cases
from graders.grading import grade
from graders.submission import read

CASES = [c for c in all_cases() if not c.cli_only]


def job(case):
    submission = read(str(case.path), case.exercise)
    return {"id": case.id + "@" + case.exercise, "exercise": case.exercise, "code": submission.code,
            "answers": submission.answers, "filename": case.path.name}


@pytest.fixture(scope="module")
def pyodide_verdicts():
    node = shutil.which("node")
    assert node, "Node.js is needed to run Pyodide (make test installs the npm deps)"
    run = subprocess.run(
        [node, str(ROOT / "tests" / "pyodide_grade.mjs")],
        input=json.dumps([job(c) for c in CASES]), capture_output=True, text=True, timeout=900, cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def test_pyodide_runs_a_newer_python(pyodide_verdicts):
    assert pyodide_verdicts["python"].startswith("3.1")
    assert pyodide_verdicts["python"] != ".".join(map(str, __import__("sys").version_info[:3]))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id + "@" + c.exercise)
def test_same_verdict_as_cpython(pyodide_verdicts, case):
    in_pyodide = pyodide_verdicts["results"][case.id + "@" + case.exercise]
    here = grade(case.exercise, read(str(case.path), case.exercise), case.path.name).to_dict()
    got = {c["id"]: c["passed"] for c in in_pyodide["criteria"]}
    assert got == case.expected, in_pyodide
    assert got == {c["id"]: c["passed"] for c in here["criteria"]}
    assert [_same(c["message"]) for c in in_pyodide["criteria"]] == [_same(c["message"]) for c in here["criteria"]]


def _same(message: str) -> str:
    """Messages up to tempfile's random names, which differ from run to run and machine to machine."""
    return re.sub(r"\btmp[a-z0-9_]{8}\b", "tmpXXXXXXXX", message)
