"""The corpus graded in a container (tests/no_namespaces.py: namespaces refused, as Docker's default
profile does): `auto` falls back to reduced mode and every submission gets the verdict the corpus
expects, the one bubblewrap mode gives (test_graders_corpus.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import no_namespaces
from conftest import ROOT
from corpus_cases import all_cases

CASES = [c for c in all_cases() if c.path.suffix == ".py"]


@pytest.fixture(scope="module")
def container_verdicts():
    verdicts, warnings = {}, {}
    for exercise in ("nivel-1", "nivel-2"):
        files = [str(c.path) for c in CASES if c.exercise == exercise]
        run = subprocess.run([*no_namespaces.wrapper(), sys.executable, "-m", "graders", exercise, *files,
                              "--format", "json", "--jobs", "2"],
                             cwd=ROOT, capture_output=True, timeout=900, stdin=subprocess.DEVNULL)
        document = json.loads(run.stdout)
        assert document["report"]["isolation"] == "reduzido", "bubblewrap ran: the filter did not hold"
        warnings[exercise] = run.stderr.decode("utf-8", "replace")
        assert len(document["submissions"]) == len(files)
        for entry in document["submissions"]:
            path = next(f for f in files if f.endswith("/" + entry["file"].rsplit("/", 1)[-1]))
            # The criteria this file was judged on (a .py answers no question: those are listed as
            # "só no arquivo exportado", with the rest of the assignment).
            verdicts[(exercise, path)] = {c["id"]: c["passed"] for c in entry.get("criteria", [])
                                          if c.get("state") in ("ok", "falhou")}
    return verdicts, warnings


def test_auto_falls_back_and_warns(container_verdicts):
    _verdicts, warnings = container_verdicts
    for text in warnings.values():
        assert "isolamento reduzido" in text and "Landlock" in text, text


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_same_verdict_as_bubblewrap(container_verdicts, case):
    verdicts, _ = container_verdicts
    got = verdicts[(case.exercise, str(case.path))]
    assert got == case.expected, f"{case.id}: {case.why}"
