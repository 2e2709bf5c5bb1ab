"""Every submission of the corpus gets exactly its expected verdict, criterion by criterion (CPython)."""

from __future__ import annotations

import pytest

from corpus_cases import all_cases
from graders import exercises
from graders.grading import grade
from graders.submission import read

# grade() runs the CLI's own sandbox, so the cli-only cases (threads, a real time limit) belong here too.
CASES = all_cases()


def test_corpus_is_big_and_balanced():
    code_cases = [c for c in all_cases() if c.exercise == "nivel-2" and c.path.suffix == ".py"]
    assert len(code_cases) >= 40
    passing = [c for c in code_cases if all(c.expected.values())]
    assert len(passing) >= 15, "too few correct submissions: false failures would go unseen"
    for criterion in exercises.code_criteria("nivel-2"):
        failing = [c for c in code_cases if not c.expected[criterion]]
        assert len(failing) >= 5, f"too few submissions that must fail {criterion}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_verdict_matches_expectation(case):
    verdict = grade(case.exercise, read(str(case.path), case.exercise), case.path.name)
    got = {c.id: c.passed for c in verdict.criteria}
    assert got == case.expected, f"{case.why}\n" + "\n".join(
        f"  {c.id}: {'ok' if c.passed else 'falhou'} {c.message}" for c in verdict.criteria
    )
    assert verdict.passed == all(case.expected.values())
    for criterion in verdict.criteria:
        if not criterion.passed:
            assert criterion.message, f"{criterion.id} failed without saying why"
    for criterion_id in case.hinted:
        assert next(c for c in verdict.criteria if c.id == criterion_id).hint
    if case.says:
        assert any(case.says in c.message for c in verdict.criteria), case.says


@pytest.mark.parametrize("exercise", ["nivel-1", "nivel-2"])
def test_reference_solution_passes_every_criterion(exercise):
    source = exercises.read_text(exercise, "solution.py")
    from graders.submission import Submission

    verdict = grade(exercise, Submission(source, None))
    assert verdict.passed, [c for c in verdict.criteria if not c.passed]
    assert [c.id for c in verdict.criteria] == exercises.code_criteria(exercise)


def test_starter_fails_exactly_the_two_fixes():
    from graders.submission import Submission

    verdict = grade("nivel-2", Submission(exercises.read_text("nivel-2", "starter.py"), None))
    failed = [c.id for c in verdict.criteria if not c.passed]
    assert failed == ["escrita-atomica", "ponto-a"]
    atomic = verdict.criteria[0]
    assert atomic.message.startswith("Queda ") and "checkpoint.json" in atomic.message
    assert atomic.disk and atomic.disk["path"] == "checkpoint.json"
