"""Turn the CLI's ARQUIVO arguments into the list of files to grade: a folder is read with its
subfolders (`.py` and `.json` in any case), in a stable order; everything else under it is listed as
ignored, with the reason (hidden entries, `__pycache__`, archives, other extensions).
"""

from __future__ import annotations

import os
import re
import zipfile
from dataclasses import dataclass

SUFFIXES = (".py", ".json")
SKIPPED_DIRS = frozenset(("__pycache__",))


@dataclass(frozen=True)
class Entry:
    path: str       # as the CLI opens it (the folder given joined with the file's place in it)
    shown: str      # the short name reports show: relative to the folder given, or the path as given
    folder: str | None = None  # the folder argument this file came from, if any
    empty: bool = False  # a folder argument with nothing to grade in it (reported in its place)
    missing: bool = False  # an argument that names nothing on disk
    data: bytes | None = None  # a file inside a .zip (--zip): its bytes, read in memory


ARCHIVES = (".zip", ".rar", ".7z", ".tar", ".gz", ".tgz", ".bz2", ".xz")


def _reason(name: str, is_dir: bool, read_zips: bool = False) -> str | None:
    """Why an entry under a folder is not graded (None: it is)."""
    if name.startswith("."):
        return "oculto (o nome começa com .)" if not is_dir else "pasta oculta (o nome começa com .)"
    if is_dir:
        return "cache do Python" if name in SKIPPED_DIRS else None
    lower = name.lower()
    if lower.endswith(SUFFIXES):
        return None
    if lower.endswith(".zip") and read_zips:
        return None
    if lower.endswith(ARCHIVES):
        return "compactado — extraia antes" + ("" if read_zips or not lower.endswith(".zip") else " (ou use --zip)")
    return "não é .py nem .json"


OWN_REPORT = "relatório do próprio corretor (--format json), não é uma entrega"


def _own_report(path: str) -> bool:
    """A class report this CLI wrote (`--format json`) left in the class folder: never a submission."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(8192)
    except OSError:
        return False
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return head.startswith(b"{") and b'"report"' in head[:64] and b'"grader_version"' in head


def _sort_key(name: str) -> tuple:
    """Natural order (aluno2 before aluno10), ignoring case; the same on every file system and locale."""
    parts = tuple((0, int(p), "") if p.isdigit() else (1, 0, p.casefold()) for p in re.split(r"(\d+)", name) if p)
    return (parts, name)


def _walk(folder: str, ignored: list | None = None, read_zips: bool = False) -> list[str]:
    found = []
    ignored = [] if ignored is None else ignored

    def skip(path: str, reason: str):
        ignored.append({"path": os.path.relpath(path, folder), "reason": reason})

    def visit(current: str):
        try:
            with os.scandir(current) as it:
                entries = sorted(it, key=lambda e: _sort_key(e.name))
        except OSError:
            if current != folder:
                skip(current, "pasta ilegível")
            return  # an unreadable subfolder: nothing in it can be graded (the others still are)
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file(follow_symlinks=True)
            except OSError:
                skip(entry.path, "ilegível")
                continue
            reason = _reason(entry.name, is_dir, read_zips)
            if not reason and not is_dir and entry.name.lower().endswith(".json") and _own_report(entry.path):
                reason = OWN_REPORT
            if reason:
                skip(entry.path, reason)
            elif is_dir:
                visit(entry.path)
            elif is_file or entry.is_symlink():
                found.append(entry.path)
            else:
                skip(entry.path, "não é um arquivo comum")

    visit(folder)
    return found


def collect(arguments: list[str]) -> list[Entry]:
    return collect_all(arguments)[0]


def _zip_entries(path: str, shown: str, folder: str | None, ignored: list) -> list[Entry]:
    """The files to grade inside a .zip, each named `<the zip>/<its place in it>`; the rest ignored."""
    from . import archive

    try:
        found, skipped = archive.members(path)
    except (OSError, zipfile.BadZipFile, RuntimeError, NotImplementedError, EOFError) as exc:
        ignored.append({"path": shown, "reason": f".zip ilegível: {exc}"})
        return []
    ignored += [{"path": f"{shown}/{name}", "reason": reason} for name, reason in skipped]
    if not found:
        ignored.append({"path": shown, "reason": "o .zip não tem nenhum .py ou .json"})
    return [Entry(f"{path}/{name}", f"{shown}/{name}", folder, data=data) for name, data in found]


def collect_all(arguments: list[str], read_zips: bool = False) -> tuple[list[Entry], list[dict]]:
    """(entries, ignored): the files to grade, in the arguments' order (a folder's files sorted by name), and each folder
    that held none as an `empty` entry in its place. A non-folder argument is kept as it is (the
    reader says what is wrong with it); a file reached through two folders is graded once."""
    entries, seen, ignored = [], set(), []
    for argument in arguments:
        try:
            is_dir = os.path.isdir(argument)
        except (OSError, ValueError):
            is_dir = False
        if not is_dir:
            if read_zips and argument.lower().endswith(".zip") and os.path.isfile(argument):
                entries += _zip_entries(argument, argument, None, ignored)
                continue
            missing = not os.path.lexists(argument) and not argument.lower().endswith(SUFFIXES)
            entries.append(Entry(argument, argument, missing=missing))
            continue
        skipped: list = []
        files = _walk(argument, skipped, read_zips)
        several = len([a for a in arguments if os.path.isdir(a)]) > 1
        ignored += [{**i, "path": os.path.join(argument, i["path"]) if several else i["path"]} for i in skipped]
        if not files:
            entries.append(Entry(argument, argument, argument, empty=True))
        for path in files:
            if path in seen:
                continue
            seen.add(path)
            if read_zips and path.lower().endswith(".zip"):
                entries += _zip_entries(path, os.path.relpath(path, argument), argument, ignored)
                continue
            entries.append(Entry(path, os.path.relpath(path, argument), argument))
    return entries, ignored
