"""Copy the graders and the exercise definitions into a generated autograder, so that grading on a
platform needs nothing from the network (and nothing from this repository's checkout)."""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The reviewers' `note` lines say why each option is right or wrong: the site strips them from its
# bundle (sitebuild/exercise_notes.py), and so does every autograder (a Classroom repository is
# the student's own).
_NOTE_LINE = re.compile(r'^note = "(?:[^"\\\n]|\\.)*"[ \t]*\r?\n', re.M)


def _without_notes(data):
    if isinstance(data, dict):
        return {k: _without_notes(v) for k, v in data.items() if k != "note"}
    if isinstance(data, list):
        return [_without_notes(v) for v in data]
    return data


def strip_notes(text: str) -> str:
    stripped = _NOTE_LINE.sub("", text)
    if tomllib.loads(stripped) != _without_notes(tomllib.loads(text)):
        raise ValueError("uma `note` de exercise.toml não está numa linha só: não dá para tirá-la do autograder")
    return stripped


def _ignored(folder, names):
    return [n for n in names if n == "__pycache__" or n.endswith((".pyc", ".pyo"))]


def vendor(dest: Path) -> Path:
    """Copy graders/, exercises/ (without notes) and pyproject.toml into `dest` (created); returns it.
    `python -m graders` then runs from `dest` as from a checkout."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copytree(ROOT / "graders", dest / "graders", ignore=_ignored)
    shutil.copytree(ROOT / "exercises", dest / "exercises", ignore=_ignored)
    for toml in (dest / "exercises").rglob("exercise.toml"):
        toml.write_text(strip_notes(toml.read_text(encoding="utf-8")), encoding="utf-8")
    shutil.copy2(ROOT / "pyproject.toml", dest / "pyproject.toml")
    return dest
