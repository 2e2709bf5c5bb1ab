"""Grade the structured answers (diagnosis, missing fields, quiz) against `exercise.toml`."""

from __future__ import annotations

import re

from . import exercises
from .verdict import CriterionResult


def _strip(text: str) -> str:
    return " ".join(text.split())


def _grade_question(question: dict, answer) -> tuple[bool, list[str], str]:
    """(correct, feedback for what is wrong, feedback for the right answer)."""
    options = {o["id"]: o for o in question["options"]}
    correct = {o["id"] for o in question["options"] if o.get("correct")}
    prompt = _strip(question["prompt"])
    if question.get("type") == "multiple":
        chosen = answer if isinstance(answer, list) else []
        chosen_set = {c for c in chosen if isinstance(c, str)}
        if not chosen_set:
            return False, [f"Sem resposta para: {prompt}"], ""
        wrong = [options[c]["feedback"] for c in options if c in chosen_set and c not in correct]
        unknown = sorted(c for c in chosen_set if c not in options)
        missing = [options[c]["text"] for c in options if c in correct and c not in chosen_set]
        notes = wrong + [f"Opção desconhecida: {c!r}." for c in unknown]
        if missing:
            notes.append("Faltou marcar: " + ", ".join(missing) + ".")
        return not notes, notes, ""
    if not isinstance(answer, str) or not answer:
        return False, [f"Sem resposta para: {prompt}"], ""
    if answer not in options:
        return False, [f"Opção desconhecida {answer!r} para: {prompt}"], ""
    if answer in correct:
        return True, [], options[answer]["feedback"]
    return False, [options[answer]["feedback"]], ""


def grade_answers(exercise_id: str, answers: dict | None) -> dict[str, CriterionResult]:
    answers = answers if isinstance(answers, dict) else {}
    by_criterion: dict[str, list[dict]] = {}
    for question in exercises.questions(exercise_id):
        by_criterion.setdefault(question["criterion"], []).append(question)
    results = {}
    for criterion, questions in by_criterion.items():
        notes, praise = [], []
        for question in questions:
            ok, wrong, right = _grade_question(question, answers.get(question["id"]))
            notes.extend(wrong)
            if right:
                praise.append(right)
        if notes:
            results[criterion] = CriterionResult(criterion, False, " ".join(notes))
        else:
            # One "Isso:" for the criterion, not one per question.
            praise = praise[:1] + [re.sub(r"^Isso[.:]\s*", "", p, count=1) for p in praise[1:]]
            results[criterion] = CriterionResult(criterion, True, hint=" ".join(p[:1].upper() + p[1:] for p in praise))
    return results
