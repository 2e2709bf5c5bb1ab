"""Shared mappings in the browser: Emscripten's are copies written back to the file by msync and munmap,
so the page traces each write-back as the write it is, and honest and broken mmap code gets the CLI's
verdict on every criterion (the crash points differ: the CLI also sees the stores between calls)."""

from __future__ import annotations

import json
import shutil
import subprocess

from conftest import ROOT
from corpus_cases import all_cases
from graders.submission import read

# cli-only in the corpus because their traces and crash points differ from the CLI's; no threads, no ctypes.
NAMES = ("bad_mmap_in_place.py", "ok_mmap_tmp_replace.py")


def test_mmap_code_gets_the_cli_verdict_in_the_browser():
    cases = [c for c in all_cases() if c.path.name in NAMES]
    assert len(cases) == len(NAMES) and all(c.cli_only for c in cases)
    node = shutil.which("node")
    assert node, "Node.js is needed to run Pyodide (make test installs the npm deps)"
    jobs = [{"id": c.id, "exercise": c.exercise, "code": read(str(c.path), c.exercise).code,
             "answers": None, "filename": c.path.name} for c in cases]
    run = subprocess.run([node, str(ROOT / "tests" / "pyodide_grade.mjs")], input=json.dumps(jobs),
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    for case in cases:
        verdict = json.loads(run.stdout)["results"][case.id]
        got = {c["id"]: c["passed"] for c in verdict["criteria"]}
        assert got == case.expected, (case.id, verdict)
        for criterion in verdict["criteria"]:
            assert "recusad" not in criterion["message"], criterion
        if case.says:
            assert any(case.says in c["message"] for c in verdict["criteria"]), verdict
