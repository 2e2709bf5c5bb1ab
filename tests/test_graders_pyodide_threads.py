"""Honest code that saves from a worker thread passes in the CLI (corpus, cli-only); in the browser,
which has no threads, it gets the clear Portuguese thread message on every criterion, never a verdict
about its checkpoints."""

from __future__ import annotations

from corpus_cases import all_cases
from pyodide_grading import case_job, grade_in_pyodide


def test_thread_saves_get_the_thread_message_in_the_browser():
    case = next(c for c in all_cases() if c.path.name == "ok_thread_saves.py")
    assert case.cli_only and all(case.expected.values())
    verdict = grade_in_pyodide([case_job(case)])[case.id]
    assert verdict["passed"] is False
    for criterion in verdict["criteria"]:
        assert not criterion["passed"]
        message = criterion["message"]
        assert "thread" in message and "navegador" in message, message
        # Nothing about checkpoints: the run was stopped, not judged.
        assert "Queda" not in message and "checkpoint.json" not in message, message


def test_process_starts_get_the_process_message_in_the_browser():
    """multiprocessing and os.fork pass in the CLI (corpus, cli-only); the browser has no processes and
    says so in Portuguese, never judging checkpoints it could not see written."""
    names = ("ok_multiprocessing_pool.py", "ok_child_saves_atomically_after_return.py")
    cases = [c for c in all_cases() if c.path.name in names]
    assert len(cases) == 2 and all(c.cli_only and all(c.expected.values()) for c in cases)
    results = grade_in_pyodide([case_job(c) for c in cases])
    for case in cases:
        verdict = results[case.id]
        assert verdict["passed"] is False
        runs = next(c for c in verdict["criteria"] if c["id"] == "executavel")
        assert "não tem processos" in runs["message"] and "linha de comando" in runs["message"], runs
        for criterion in verdict["criteria"]:
            assert "Queda" not in criterion["message"], criterion


def test_importing_multiprocessing_costs_no_later_check_in_the_page():
    """The runner's hook for multiprocessing (the student's functions carried to spawned processes) is
    the page's for one run only: "Verificar" three times in one Pyodide gives the same verdict."""
    from graders import exercises

    code = "import multiprocessing\n" + exercises.read_text("nivel-2", "solution.py")
    results = grade_in_pyodide([{"id": f"v{i}", "exercise": "nivel-2", "code": code, "answers": None,
                                  "filename": "solucao.py"} for i in range(3)])
    for i in range(3):
        assert results[f"v{i}"]["passed"], results[f"v{i}"]


def test_a_process_started_through_multiprocessing_gets_the_process_message():
    """Whichever way a process is started (here a fork-context Process, whose failing line does not say
    fork), the page says it has no processes, never an English error."""
    from graders import exercises

    solution = exercises.read_text("nivel-2", "solution.py")
    code = solution.replace("def run_agent(", "import multiprocessing\n\n\ndef _nothing():\n    pass\n\n\n"
                            "def run_agent(", 1).replace(
        "    state = {", "    child = multiprocessing.get_context('fork').Process(target=_nothing)\n"
                         "    child.start()\n    child.join()\n    state = {", 1)
    assert "child.start()" in code
    verdict = grade_in_pyodide([{"id": "p", "exercise": "nivel-2", "code": code, "answers": None,
                                  "filename": "solucao.py"}])["p"]
    runs = next(c for c in verdict["criteria"] if c["id"] == "executavel")
    assert not runs["passed"] and "não tem processos" in runs["message"], runs
