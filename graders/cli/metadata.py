"""What every report says about itself: when it was made, which isolation was really used, and which
grader made it (the project's version plus a fingerprint of the graders' and exercises' files).
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import re
from pathlib import Path

from ..sandbox.reduced import fences_text

ROOT = Path(__file__).resolve().parents[2]
ISOLATION_TEXT = {
    "estrito": "bubblewrap (processo isolado, sem rede, sistema somente leitura)",
    "reduzido": "reduzido (sem bubblewrap; veja PROFESSORES.md, Isolamento)",
}


@functools.lru_cache(maxsize=1)
def grader_version() -> str:
    """"0.1.0+3f2a9c1b7d42": the version in pyproject.toml and a hash of every file that decides a
    verdict, so two reports with the same text were made by the same graders."""
    version = "?"
    try:
        match = re.search(r'^version\s*=\s*"([^"]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M)
        if match:
            version = match.group(1)
    except OSError:
        pass
    digest = hashlib.sha256()
    for folder, patterns in (("graders", ("*.py",)), ("exercises", ("*.toml", "*.py"))):
        files = sorted(p for pattern in patterns for p in (ROOT / folder).rglob(pattern) if "__pycache__" not in p.parts)
        for path in files:
            try:
                digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
            except OSError:
                continue
    return f"{version}+{digest.hexdigest()[:12]}"


def describe(isolated: bool, interrupted: bool, exercises: list[str], when: datetime.datetime | None = None,
             pending: list[str] | None = None, fences: dict | None = None) -> dict:
    """The report's own facts (the "report" object of the JSON; a header in the other formats).
    `fences`: Sandbox.fences(), which fences held around the submissions.

    A new fact is one key here: the JSON carries every key as it is, and the formats that print a
    header read it in one line of graders.cli.formats.prose.header_lines (as "fences" is read)."""
    when = when or datetime.datetime.now(datetime.timezone.utc).astimezone()
    mode = "estrito" if isolated else "reduzido"
    return {
        "generated_at": when.isoformat(timespec="seconds"),
        "isolation": mode,
        "isolation_text": ISOLATION_TEXT[mode],
        "fences": fences,
        # Said here, where the grading ran (it depends on who ran it), not by each format.
        "fences_text": fences_text(fences) if fences else None,
        "grader_version": grader_version(),
        "exercises": list(exercises),
        "interrupted": interrupted,
        "not_graded": list(pending or []),
    }
