"""One entry point for every exercise: `grade(exercise_id, submission)` -> `Verdict`."""

from __future__ import annotations

from . import answers, exercises, nivel1, nivel2
from .submission import Submission, SubmissionError
from .verdict import CriterionResult, Verdict

CODE_GRADERS = {"nivel-1": nivel1.grade_code, "nivel-2": nivel2.grade_code}


def grade(exercise_id: str, submission: Submission, filename: str = "solucao.py", runner_factory=None) -> Verdict:
    """`runner_factory(source, filename, job)`: where student code runs (default: this interpreter)."""
    meta_ids = exercises.criterion_ids(exercise_id)  # raises UnknownExercise
    code_ids = exercises.code_criteria(exercise_id)
    results: dict[str, CriterionResult] = {}
    output, timeline = "", None
    if submission.answers is None and not code_ids:
        raise SubmissionError(f"o exercício {exercise_id!r} se responde com o arquivo .json exportado pelo site")
    if submission.answers is not None:
        results.update(answers.grade_answers(exercise_id, submission.answers))
    if code_ids:
        if submission.code is None or not submission.code.strip():
            for cid in code_ids:
                results[cid] = CriterionResult(cid, False, "Não há código para avaliar.")
        else:
            graded, output, timeline = CODE_GRADERS[exercise_id](submission.code, filename, runner_factory)
            results.update(graded)
    shown = meta_ids if submission.answers is not None else code_ids
    labels = {c["id"]: c["label"] for c in exercises.load(exercise_id)["criteria"]}
    for c in shown:
        results[c].label = labels[c]  # the full criterion, shown once the student has committed
    verdict = Verdict(exercise_id, [results[c] for c in shown], output, timeline=timeline)
    if submission.answers is not None:
        texts = submission.texts or {}
        verdict.writings = [
            {"id": w["id"], "prompt": w["prompt"], "text": texts.get(w["id"], "") if isinstance(texts.get(w["id"]), str) else "",
             "model": w["model"]}
            for w in exercises.writings(exercise_id)
        ]
    return verdict
