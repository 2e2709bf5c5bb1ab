"""The reports' "possible copies" section: for each exercise, the groups of submissions whose code is
identical or near-identical (graders.similarity), named as the rest of the report names files.
"""

from __future__ import annotations

from .. import exercises
from ..similarity import find_similar


def _starter(exercise: str) -> str | None:
    try:
        return exercises.read_text(exercise, "starter.py")
    except OSError:
        return None


def possible_copies(codes: dict[str, dict[str, str]], who: dict[str, str | None] | None = None) -> list[dict]:
    """[{"exercise", "kind": "idêntico"|"quase idêntico", "score", "members": [{"file", "student"}]}]
    for `codes` = {exercise: {file's short name: its code}}; `who` = {file's short name: student}."""
    who = who or {}
    found = []
    for exercise, by_file in codes.items():
        if len(by_file) < 2:
            continue
        for group in find_similar(by_file, starter=_starter(exercise)):
            found.append({
                "exercise": exercise, "kind": group.kind, "score": group.score,
                "members": [{"file": label, "student": who.get(label)} for label in group.members],
            })
    return found
