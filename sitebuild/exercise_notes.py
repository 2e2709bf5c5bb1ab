"""Strip the reviewers' `note` lines from an `exercise.toml` before it ships in the page's Python.

Every option of every question carries a `note` (why it is right or wrong), for whoever reviews the
exercise. The page renders only the option's `text`, and the graders never read `note`; this keeps
the notes out of the published bundle as well.
"""

from __future__ import annotations

import re
import tomllib

# One key per line, a single-line basic string: the form the exercise files use for notes.
NOTE_LINE = re.compile(r'^note = "(?:[^"\\\n]|\\.)*"[ \t]*\r?\n', re.M)


class NoteError(ValueError):
    pass


def without_notes(data):
    """The parsed TOML with every `note` key removed, at any depth."""
    if isinstance(data, dict):
        return {k: without_notes(v) for k, v in data.items() if k != "note"}
    if isinstance(data, list):
        return [without_notes(v) for v in data]
    return data


def strip_notes(text: str) -> str:
    """`text` without its `note` lines; anything else unchanged. Raises NoteError when a note is
    written in a form this cannot remove (a multi-line string, an inline table)."""
    stripped = NOTE_LINE.sub("", text)
    if tomllib.loads(stripped) != without_notes(tomllib.loads(text)):
        raise NoteError("uma `note` de exercise.toml não está numa linha só (note = \"...\"): não dá para tirá-la do site")
    return stripped
