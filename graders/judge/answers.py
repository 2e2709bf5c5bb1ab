"""Grade the structured answers (diagnosis, missing fields, quiz) against `exercise.toml`.

A wrong answer gets feedback on what the student chose, never the right option: that is shown
only once the student answers right, or chooses "Mostrar a resposta" (`revealed`).
"""

from __future__ import annotations

import re

from .. import exercises
from .verdict import CriterionResult

# Multiple choice, when the question does not word these itself: what is wrong, not which option.
EXTRA_MARKED = "Pelo menos uma das opções marcadas não vale aqui."
MISSING_MARK = "Ainda falta marcar pelo menos uma opção."


def _strip(text: str) -> str:
    return " ".join(text.split())


def _without_praise(text: str) -> str:
    return re.sub(r"^Certo[.:]\s*", "", text, count=1)


def _grade_question(question: dict, answer, name: str) -> tuple[bool, list[str], str]:
    """(correct, feedback for what is wrong, feedback for the right answer); `name` is how a blank
    or unknown answer names the question (its criterion's title, and its number there)."""
    options = {o["id"]: o for o in question["options"]}
    correct = {o["id"] for o in question["options"] if o.get("correct")}
    prompt = name
    if question.get("type") == "multiple":
        chosen = answer if isinstance(answer, list) else []
        chosen_set = {c for c in chosen if isinstance(c, str)}
        if not chosen_set:
            return False, [f"Sem resposta na {prompt}."], ""
        unknown = sorted(c for c in chosen_set if c not in options)
        notes = [f"Opção desconhecida: {c!r}." for c in unknown]
        # Aggregate on purpose: per-option feedback would let one click sort every option.
        if chosen_set & options.keys() - correct:
            notes.append(question.get("extra_feedback", EXTRA_MARKED))
        if correct - chosen_set:
            notes.append(question.get("missing_feedback", MISSING_MARK))
        return not notes, notes, question.get("explanation", "") if not notes else ""
    if not isinstance(answer, str) or not answer:
        return False, [f"Sem resposta na {prompt}."], ""
    if answer not in options:
        return False, [f"Opção desconhecida {answer!r}: {prompt}."], ""
    if answer in correct:
        return True, [], options[answer]["feedback"]
    return False, [options[answer]["feedback"]], ""


def _sentence(text: str) -> str:
    text = _strip(text)
    return text if text.endswith((".", "?", "!")) else text + "."


def right_answer(question: dict) -> str:
    """The right option(s) and why, for a criterion the student chose to reveal."""
    right = [o for o in question["options"] if o.get("correct")]
    shown = ", ".join(o["text"] for o in right)
    why = question.get("explanation") or _without_praise(right[0]["feedback"])
    return f"{_sentence(shown)} {_sentence(why[:1].upper() + why[1:])}"


def grade_answers(exercise_id: str, answers: dict | None, revealed=()) -> dict[str, CriterionResult]:
    answers = answers if isinstance(answers, dict) else {}
    by_criterion: dict[str, list[dict]] = {}
    for question in exercises.questions(exercise_id):
        by_criterion.setdefault(question["criterion"], []).append(question)
    results = {}
    titles = {c["id"]: _strip(c.get("title", c["id"])) for c in exercises.load(exercise_id)["criteria"]}
    for criterion, questions in by_criterion.items():
        notes, praise = [], []
        several = len(questions) > 1
        for number, question in enumerate(questions, 1):
            # Named by the title the page shows, not by the whole question (a paragraph, at times).
            name = f"pergunta {number} de “{titles[criterion]}”" if several else f"pergunta “{titles[criterion]}”"
            ok, wrong, right = _grade_question(question, answers.get(question["id"]), name)
            if wrong:
                # One block per question: two wrong answers never run together.
                blank = wrong[0].startswith(("Sem resposta", "Opção desconhecida"))  # these name it already
                notes.append((f"Pergunta {number}: " if several and not blank else "") + " ".join(wrong))
            if right:
                praise.append(right)
        if notes:
            # One line for every report (the CLI's are line-based); "Pergunta N:" starts each block,
            # and the page shows each block apart.
            result = CriterionResult(criterion, False, " ".join(notes))
        else:
            # One "Certo:" for the criterion, not one per question.
            praise = praise[:1] + [_without_praise(p) for p in praise[1:]]
            result = CriterionResult(criterion, True, hint=" ".join(p[:1].upper() + p[1:] for p in praise))
        if criterion in revealed:
            result.revealed = True
            several = len(questions) > 1
            result.answer = "\n".join(
                (f"{_strip(q['prompt'])} " if several else "") + right_answer(q) for q in questions
            )
        results[criterion] = result
    return results
