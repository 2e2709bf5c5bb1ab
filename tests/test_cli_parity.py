"""The CLI (sandboxed processes, real kills) and the in-process engine of the browser agree on every
corpus submission that is not CLI-only: same criteria, same verdicts, same messages."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT
from corpus_cases import all_cases
from graders.grading import grade
from graders.submission import read

CASES = [c for c in all_cases() if not c.cli_only and c.path.suffix == ".py"]


@pytest.fixture(scope="module")
def cli_verdicts():
    verdicts = {}
    for exercise in ("nivel-1", "nivel-2"):
        files = [str(c.path) for c in CASES if c.exercise == exercise]
        run = subprocess.run(
            [sys.executable, "-m", "graders", exercise, *files, "--format", "json", "--isolamento", "estrito"],
            capture_output=True, text=True, timeout=600, cwd=ROOT,
        )
        assert run.returncode in (0, 1), run.stderr
        verdicts.update({(exercise, r["file"]): r for r in json.loads(run.stdout)})
    return verdicts


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cli_gives_the_in_process_verdict(cli_verdicts, case):
    from_cli = cli_verdicts[(case.exercise, str(case.path))]
    here = grade(case.exercise, read(str(case.path), case.exercise), case.path.name).to_dict()
    assert {c["id"]: c["passed"] for c in from_cli["criteria"]} == case.expected, from_cli
    assert [(c["id"], c["passed"], c["message"]) for c in from_cli["criteria"]] == [
        (c["id"], c["passed"], c["message"]) for c in here["criteria"]
    ]
