"""The reports' "possible copies" section: for each exercise, the groups of submissions whose code is
identical or near-identical (graders.similarity), named as the rest of the report names files.
"""

from __future__ import annotations

from .. import exercises
from ..similarity import REFERENCE, find_similar, starter_copies


STARTER_KIND = "igual ao código inicial"
REFERENCE_KIND = {"idêntico": "igual à solução de referência", "quase idêntico": "parecido com a solução de referência"}


def _source(exercise: str, name: str) -> str | None:
    try:
        return exercises.read_text(exercise, name)
    except OSError:
        return None


def possible_copies(codes: dict[str, dict[str, str]], who: dict[str, str | None] | None = None,
                    shapes: dict | None = None) -> list[dict]:
    """[{"exercise", "kind", "score", "members": [{"file", "student"}]}] for `codes` = {exercise: {file's
    short name: its code}}; `who` = {file's short name: student}. kind: "idêntico", "quase idêntico",
    or, when the exercise's reference solution (published in the site) is in the group, "igual à
    solução de referência" / "parecido com a solução de referência" (then even one file is a group), or
    "igual ao código inicial": the exercise's starter handed in unchanged. `shapes`: {code: its
    similarity.shape}, made while the class was graded (see grade_job)."""
    who = who or {}
    found = []
    for exercise, by_file in codes.items():
        groups = find_similar(by_file, starter=_source(exercise, "starter.py"),
                              reference=_source(exercise, "solution.py"), shapes=shapes)
        for group in groups:
            if not group.members:
                continue
            found.append({
                "exercise": exercise, "kind": REFERENCE_KIND[group.kind] if group.reference else group.kind,
                "score": group.score,
                "members": [{"file": label, "student": who.get(label)} for label in group.members],
                # Inside a near-identical group, the files whose code is the very same.
                "identical": [list(subset) for subset in group.identical if len(subset) > 1 and REFERENCE not in subset],
                "same_as_reference": [label for subset in group.identical if REFERENCE in subset
                                      for label in subset if label != REFERENCE],
            })
        unchanged = starter_copies(by_file, _source(exercise, "starter.py"), shapes)
        if unchanged:
            found.append({"exercise": exercise, "kind": STARTER_KIND, "score": 1.0,
                          "members": [{"file": label, "student": who.get(label)} for label in unchanged],
                          "identical": [], "same_as_reference": []})
    return found
