"""Grading jobs inside Pyodide under Node, offline, as the page does (tests/pyodide_grade.mjs)."""

from __future__ import annotations

import json
import shutil
import subprocess

from conftest import ROOT
from graders.submission import read


def case_job(case) -> dict:
    """The job of a corpus case's code file."""
    return {"id": case.id, "exercise": case.exercise, "code": read(str(case.path), case.exercise).code,
            "answers": None, "filename": case.path.name}


def grade_in_pyodide(jobs: list[dict]) -> dict:
    """{job id: verdict} for `jobs`, graded one after another in one Pyodide."""
    node = shutil.which("node")
    assert node, "Node.js is needed to run Pyodide (make test installs the npm deps)"
    run = subprocess.run([node, str(ROOT / "tests" / "pyodide_grade.mjs")], input=json.dumps(jobs),
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)["results"]
