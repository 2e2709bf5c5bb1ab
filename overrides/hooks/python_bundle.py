"""MkDocs hook: pack the graders and the exercise files into `assets/python/lesson.zip`.

The page's worker unpacks this zip into Pyodide, so the browser runs the very same
graders as `python -m graders`. Entries carry a fixed date: same sources, same bytes.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = Path("assets") / "python" / "lesson.zip"
# CLI-only modules and packages (paths inside graders/): they use subprocess, seccomp and resource
# limits, which Pyodide lacks.
SKIP = {"cli.py", "sandbox.py", "forkserver.py", "fence.py", "__main__.py", "trace/kernel.py", "cli"}
FIXED_DATE = (2026, 1, 1, 0, 0, 0)


def bundle_bytes() -> bytes:
    graders = ROOT / "graders"
    paths = sorted(p for p in graders.rglob("*.py") if not _skipped(p.relative_to(graders)))
    paths += sorted(p for p in (ROOT / "exercises").rglob("*") if p.is_file() and p.suffix in {".py", ".toml", ".md"})
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in paths:
            info = zipfile.ZipInfo(path.relative_to(ROOT).as_posix(), FIXED_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, path.read_bytes())
    return buffer.getvalue()


def _skipped(path: Path) -> bool:
    return "__pycache__" in path.parts or path.as_posix() in SKIP or path.parts[0] in SKIP


def on_post_build(config):
    target = Path(config.site_dir) / TARGET
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(bundle_bytes())
