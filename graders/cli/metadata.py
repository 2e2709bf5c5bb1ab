"""What every report says about itself: when it was made, which isolation was really used, and which
grader made it (the project's version plus a fingerprint of the graders' and exercises' files).
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import re
from pathlib import Path

from .reduced import fences_text
from .report import plural

ROOT = Path(__file__).resolve().parents[2]
ISOLATION_TEXT = {
    "estrito": "bubblewrap (processo isolado, sem rede, sistema somente leitura)",
    "reduzido": "reduzido (sem bubblewrap; veja o README)",
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
    `fences`: Sandbox.fences(), which fences held around the submissions."""
    when = when or datetime.datetime.now(datetime.timezone.utc).astimezone()
    mode = "estrito" if isolated else "reduzido"
    return {
        "generated_at": when.isoformat(timespec="seconds"),
        "isolation": mode,
        "isolation_text": ISOLATION_TEXT[mode] + (f" — {fences_text(fences)}" if fences and not isolated else ""),
        "fences": fences,
        "grader_version": grader_version(),
        "exercises": list(exercises),
        "interrupted": interrupted,
        "not_graded": list(pending or []),
    }


def header_lines(meta: dict) -> list[str]:
    """The facts as short Portuguese lines (text report, spreadsheet, HTML)."""
    lines = [
        f"Gerado em: {meta['generated_at']}",
        f"Isolamento usado: {meta['isolation_text']}",
        f"Versão do corretor: {meta['grader_version']}",
    ]
    if meta.get("interrupted"):
        left = len(meta.get("not_graded") or [])
        lines.append(f"INTERROMPIDO (Ctrl+C): {plural(left, 'arquivo ficou', 'arquivos ficaram')} sem correção; "
                     "este relatório traz só os já corrigidos")
    return lines
