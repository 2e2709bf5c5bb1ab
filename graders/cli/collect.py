"""Turn the CLI's ARQUIVO arguments into the list of files to grade: a folder is read with its
subfolders (`.py` and `.json` in any case; hidden entries and `__pycache__` skipped), in a stable order.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

SUFFIXES = (".py", ".json")
SKIPPED_DIRS = frozenset(("__pycache__",))


@dataclass(frozen=True)
class Entry:
    path: str       # as the CLI opens it (the folder given joined with the file's place in it)
    shown: str      # the short name reports show: relative to the folder given, or the path as given
    folder: str | None = None  # the folder argument this file came from, if any
    empty: bool = False  # a folder argument with nothing to grade in it (reported in its place)


def _sort_key(name: str) -> tuple:
    """Natural order (aluno2 before aluno10), ignoring case; the same on every file system and locale."""
    parts = tuple((0, int(p), "") if p.isdigit() else (1, 0, p.casefold()) for p in re.split(r"(\d+)", name) if p)
    return (parts, name)


def _walk(folder: str) -> list[str]:
    found = []

    def visit(current: str):
        try:
            with os.scandir(current) as it:
                entries = sorted(it, key=lambda e: _sort_key(e.name))
        except OSError:
            return  # an unreadable subfolder: nothing in it can be graded (the others still are)
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file(follow_symlinks=True)
            except OSError:
                continue
            if is_dir:
                if entry.name not in SKIPPED_DIRS:
                    visit(entry.path)
            elif (is_file or entry.is_symlink()) and entry.name.lower().endswith(SUFFIXES):
                found.append(entry.path)

    visit(folder)
    return found


def collect(arguments: list[str]) -> list[Entry]:
    """The files to grade, in the arguments' order (a folder's files sorted by name), and each folder
    that held none as an `empty` entry in its place. A non-folder argument is kept as it is (the
    reader says what is wrong with it); a file reached through two folders is graded once."""
    entries, seen = [], set()
    for argument in arguments:
        try:
            is_dir = os.path.isdir(argument)
        except (OSError, ValueError):
            is_dir = False
        if not is_dir:
            entries.append(Entry(argument, argument))
            continue
        files = _walk(argument)
        if not files:
            entries.append(Entry(argument, argument, argument, empty=True))
        for path in files:
            if path in seen:
                continue
            seen.add(path)
            entries.append(Entry(path, os.path.relpath(path, argument), argument))
    return entries
