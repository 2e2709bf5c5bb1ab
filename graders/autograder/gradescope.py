"""Gradescope: write autograder.zip (setup.sh, run_autograder, the vendored graders), and the runner
that grades /autograder/submission into /autograder/results/results.json."""

from __future__ import annotations

# Format: Gradescope's "Autograder Specifications" (gradescope/autograder_samples docs/specs.md,
# https://gradescope-autograders.readthedocs.io/en/latest/specs/) and "Submission Metadata"
# (docs/submission_metadata.md). Every criterion is a test (`score`, `max_score`, `status`, `output`),
# `visibility: visible` like on the page; a code criterion whose explanation would give the diagnosis
# away says only the page's closed text, and its full text goes to stdout, which Gradescope shows to
# instructors only (`stdout_visibility: hidden`, the default the specs describe).

import json
import os
import sys
import tempfile
import traceback
import zipfile
from pathlib import Path

from .outcome import CONFIG_NAME, Outcome, grade, load_config
from .vendor import vendor

# Gradescope's default overall timeout is 10 minutes (docs/troubleshooting.md, "Your submission timed
# out"); the CLI is stopped well before, so the student gets a message instead of Gradescope's zero.
PLATFORM_TIMEOUT = 600
DEADLINE_MARGIN = 60
# Where run_autograder finds /autograder: "/" on Gradescope; a test points it at a folder standing for "/".
ROOT_ENV = "AUTOGRADER_ROOT"

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, while building the autograder image (docs/specs.md).
# The graders need Python 3.11 or newer and libseccomp (the CLI's supervisor loads it with ctypes);
# bubblewrap is installed in case the container allows namespaces (otherwise: reduced isolation).
set -e
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 libseccomp2 bubblewrap
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3.11
fi
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this, as root, for every submission (docs/specs.md). It grades
# /autograder/submission with the vendored graders and writes /autograder/results/results.json.
# AUTOGRADER_ROOT stands for "/" only when the autograder is tested outside Gradescope.
base="${AUTOGRADER_ROOT:-}/autograder"
py=""
for candidate in "${AUTOGRADER_PYTHON:-}" python3.13 python3.12 python3.11 python3; do
  if [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1 \\
     && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    py="$candidate"; break
  fi
done
if [ -z "$py" ]; then
  # No results.json: Gradescope then gives no score (see graders/autograder/gradescope.py).
  echo "Sem nota: o autograder precisa de Python 3.11 ou mais novo na imagem (veja setup.sh)."
  exit 0
fi
export PYTHONPATH="$base/source/corretor"
exec "$py" -m graders.autograder.gradescope "$base"
"""


def write(out: Path, exercise: str, nota_max: float, timeout: float) -> list[Path]:
    """SAIDA/autograder.zip: setup.sh and run_autograder at the root (Gradescope requires them there),
    the graders and exercises under corretor/."""
    config = {"platform": "gradescope", "exercise": exercise, "nota_max": nota_max, "timeout": timeout,
              "deadline": PLATFORM_TIMEOUT - DEADLINE_MARGIN}
    with tempfile.TemporaryDirectory() as staging:
        corretor = vendor(Path(staging) / "corretor")
        (corretor / CONFIG_NAME).write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
        target = out / "autograder.zip"
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, text in (("setup.sh", SETUP_SH), ("run_autograder", RUN_AUTOGRADER)):
                info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
                info.external_attr = 0o100755 << 16  # executable once Gradescope extracts it
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, text)
            for path in sorted(corretor.rglob("*")):
                if path.is_file():
                    archive.write(path, path.relative_to(staging).as_posix())
    return [target]


def identity(metadata_path: Path) -> str | None:
    """Who submitted, as Gradescope knows it (`users` of submission_metadata.json: every member of a
    group), never the name typed in a file."""
    try:
        with open(metadata_path, encoding="utf-8") as handle:
            users = json.load(handle).get("users") or []
    except (OSError, ValueError, AttributeError):
        return None
    names = [f"{u.get('name') or '?'} <{u.get('email')}>" if u.get("email") else str(u.get("name") or "?")
             for u in users if isinstance(u, dict)]
    return ", ".join(names) or None


def results(outcome: Outcome, several: bool) -> dict | None:
    """results.json for Gradescope, or None when the submission is not graded.

    Not graded has no results file on purpose: the specs make a score mandatory ("score: optional, but
    required if not on each test case"), and any score is a grade. Without a valid results.json
    Gradescope marks the submission "The autograder failed to execute correctly"
    (docs/troubleshooting.md) and gives it no score; the reason is printed to stdout, which instructors
    see (`stdout_visibility` defaults to hidden)."""
    if outcome.not_graded:
        return None
    tests = []
    for number, t in enumerate(outcome.tests, 1):
        tests.append({"name": f"{t.exercise} · {t.name}" if several else t.name, "number": str(number),
                      "score": t.score, "max_score": t.points, "status": "passed" if t.passed else "failed",
                      "output": t.message, "visibility": "visible"})
    return {"score": outcome.score, "execution_time": round(outcome.elapsed), "output": outcome.student_text(),
            "output_format": "text", "test_output_format": "text", "test_name_format": "text",
            "visibility": "visible", "stdout_visibility": "hidden", "tests": tests}


def write_results(folder: Path, data: dict | None):
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "results.json"
    if data is None:
        target.unlink(missing_ok=True)  # nothing stale may stand for a grade
        return
    temporary = folder / ".results.json.tmp"
    temporary.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, target)


def main(argv: list[str]) -> int:
    base = Path(argv[0]) if argv else Path("/autograder")
    root = base / "source" / "corretor"
    try:
        config = load_config(root)
        with tempfile.TemporaryDirectory(prefix="gradescope-") as work:
            outcome = grade(root, base / "submission", Path(work), config,
                            identity(base / "submission_metadata.json"), float(config["nota_max"]))
        data = results(outcome, len({t.exercise for t in outcome.tests}) > 1)
        print(outcome.student_text())
        for line in outcome.log:  # stdout: instructors only
            print(line)
    except Exception:  # noqa: BLE001 - no grade, and the instructor reads why
        traceback.print_exc()
        print("Sem nota: erro interno do autograder.")
        data = None
    write_results(base / "results", data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
