"""Read the exercise definitions (`exercises/<id>/exercise.toml`) shared by the site and the graders."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

# In the repository and in the Pyodide bundle alike, `exercises/` sits beside `graders/`.
EXERCISES_DIR = Path(__file__).resolve().parent.parent / "exercises"
EXERCISE_IDS = ("quiz-sobrescrita", "nivel-1", "nivel-2")


class UnknownExercise(ValueError):
    pass


@lru_cache(maxsize=None)
def load(exercise_id: str) -> dict:
    if exercise_id not in EXERCISE_IDS:
        raise UnknownExercise(
            f"Exercício desconhecido: {exercise_id!r}. Use um destes: {', '.join(EXERCISE_IDS)}."
        )
    path = EXERCISES_DIR / exercise_id / "exercise.toml"
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise UnknownExercise(
            f"Não encontrei {path}: os corretores leem a pasta exercises/ ao lado de graders/ "
            "(rode-os a partir do repositório, como faz o Makefile)."
        ) from None


def criterion_ids(exercise_id: str) -> list[str]:
    return [c["id"] for c in load(exercise_id)["criteria"]]


def code_criteria(exercise_id: str) -> list[str]:
    """Criteria judged from the code (the others come from the structured answers)."""
    answered = {q["criterion"] for q in load(exercise_id).get("questions", [])}
    return [i for i in criterion_ids(exercise_id) if i not in answered]


def questions(exercise_id: str) -> list[dict]:
    return list(load(exercise_id).get("questions", []))


def read_text(exercise_id: str, name: str) -> str:
    return (EXERCISES_DIR / exercise_id / name).read_text(encoding="utf-8")


def writings(exercise_id: str) -> list[dict]:
    """The written answers the exercise asks for (not graded): id, prompt, model, and for a box
    tied to an option, the question and option that make it appear."""
    return list(load(exercise_id).get("writings", []))
