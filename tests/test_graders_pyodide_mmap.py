"""Shared mappings in the browser: Emscripten's are copies written back to the file by msync and munmap,
so the page traces each write-back as the write it is, and honest and broken mmap code gets the CLI's
verdict on every criterion (the crash points differ: the CLI also sees the stores between calls)."""

from __future__ import annotations

from corpus_cases import all_cases
from pyodide_grading import case_job, grade_in_pyodide

# cli-only in the corpus because their traces and crash points differ from the CLI's; no threads, no ctypes.
NAMES = ("bad_mmap_in_place.py", "ok_mmap_tmp_replace.py")


def test_mmap_code_gets_the_cli_verdict_in_the_browser():
    cases = [c for c in all_cases() if c.path.name in NAMES]
    assert len(cases) == len(NAMES) and all(c.cli_only for c in cases)
    results = grade_in_pyodide([case_job(c) for c in cases])
    for case in cases:
        verdict = results[case.id]
        got = {c["id"]: c["passed"] for c in verdict["criteria"]}
        assert got == case.expected, (case.id, verdict)
        for criterion in verdict["criteria"]:
            assert "recusad" not in criterion["message"], criterion
        if case.says:
            assert any(case.says in c["message"] for c in verdict["criteria"]), verdict
