"""The diagnosis opens by being right, not by being tried: the same rule in every verdict the
graders build (the page, the CLI, the autograders), for any exercise with feedback_after_questions."""

from __future__ import annotations

import json

import pytest

from graders import exercises, grading
from graders.submission import Submission

STARTER = exercises.read_text("nivel-2", "starter.py")
QUESTIONS = exercises.questions("nivel-2")
RIGHT = {q["id"]: next(o["id"] for o in q["options"] if o.get("correct")) for q in QUESTIONS}
WRONG = {q["id"]: next(o["id"] for o in q["options"] if not o.get("correct")) for q in QUESTIONS}
FAULT_WORDS = ("para escrita", "truncou", "0 bytes", "ponto A", "pendingToolUse", "os.replace", "Queda ")


def graded(answers, revealed=()):
    return grading.grade("nivel-2", Submission(code=STARTER, answers=answers, revealed=list(revealed))).to_dict()


def code_feedback(verdict) -> str:
    code = set(exercises.code_criteria("nivel-2"))
    return json.dumps([c for c in verdict["criteria"] if c["id"] in code], ensure_ascii=False) + json.dumps(
        verdict.get("timeline"), ensure_ascii=False)


@pytest.mark.parametrize("answers", [{}, WRONG, {**WRONG, **{k: v for k, v in RIGHT.items() if k.endswith("escrita")}}],
                         ids=["blank", "every-answer-wrong", "one-criterion-right"])
def test_a_guess_does_not_open_the_code_feedback(answers):
    verdict = graded(answers)
    shown = code_feedback(verdict)
    for words in FAULT_WORDS:
        assert words not in shown, f"{words!r} before the diagnosis is right: {shown}"
    assert verdict.get("timeline") is None
    failed = {c["id"]: c["message"] for c in verdict["criteria"] if not c["passed"]}
    assert failed["escrita-atomica"] == grading.CLOSED_CODE_FEEDBACK


def test_a_right_or_revealed_diagnosis_opens_it():
    for verdict in (graded(RIGHT), graded(WRONG, revealed=["diagnostico-escrita", "diagnostico-ponto-a"])):
        messages = {c["id"]: c["message"] for c in verdict["criteria"]}
        assert messages["escrita-atomica"].startswith("Queda ")
        assert verdict["timeline"]["points"]


def test_the_clis_report_is_the_instructors_and_keeps_every_explanation(tmp_path):
    """The rule closes what the student reads; the instructor's report of the same export (a guess at
    every question) keeps the code criteria's messages and the crash timeline."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    export = {"format": "checkpoints-licao-2/respostas", "version": 1,
              "exercises": {"nivel-2": {"answers": WRONG, "code": STARTER}}}
    (tmp_path / "respostas.json").write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "graders", "nivel-2", "respostas.json", "--format", "json"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(root)})
    assert run.returncode == 1, run.stderr
    row = json.loads(run.stdout)["submissions"][0]
    messages = {c["id"]: c["message"] for c in row["criteria"]}
    assert messages["escrita-atomica"].startswith("Queda "), messages
    assert grading.CLOSED_CODE_FEEDBACK not in json.dumps(row, ensure_ascii=False)
    assert row["timeline"]
    # The page's grading of the same file closes them (the test above), so the rule is not lost.
    assert graded(WRONG).get("timeline") is None
