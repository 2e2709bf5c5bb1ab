"""PrairieLearn: write an externally graded question folder, and the runner that grades /grade/student
into /grade/results/results.json."""

from __future__ import annotations

# Format: PrairieLearn's "External Grading" (PrairieLearn/PrairieLearn docs/externalGrading.md):
# `gradable`, `score` in [0, 1], `message`, `output`, `tests[]` (`name`, `points`, `max_points`,
# `message`, `output`); `gradable: false` means "invalid, not gradable": no points awarded or lost and
# no attempt used — the not-graded state (outcome.not_graded). PrairieLearn shows every test of
# `<pl-external-grader-results>` to the student (no per-test visibility field): a code criterion whose
# explanation would give the diagnosis away says only the page's closed text; its full text is
# printed to the job's log, which course staff read.

import base64
import json
import os
import sys
import tempfile
import traceback
import uuid
from pathlib import Path

from .. import exercises
from .outcome import CONFIG_NAME, Outcome, grade, load_config
from .vendor import vendor

# externalGrading.md: `timeout` defaults to 30 s and cannot exceed 600 s.
PLATFORM_TIMEOUT_MAX = 600
DEADLINE_MARGIN = 15
# A Docker Hub image PrairieLearn can pull: Debian with Python 3.12 (the graders need 3.11+ for
# tomllib) and libseccomp2 (pulled in by apt itself, which Debian's images always carry; the CLI's
# supervisor loads it with ctypes). See docs-pending/autograder.md for why not prairielearn/grader-python.
IMAGE = "python:3.12-slim"
EXPORT_NAME = "respostas-licao-2.json"

ENTRYPOINT = """#!/bin/bash
# PrairieLearn runs this as the grading container's entrypoint (docs/externalGrading.md).
# AUTOGRADER_ROOT stands for "/" only when the question is tested outside PrairieLearn.
base="${AUTOGRADER_ROOT:-}/grade"
export PYTHONPATH="$base/tests/corretor"
exec "${AUTOGRADER_PYTHON:-python3}" -m graders.autograder.prairielearn "$base"
"""


def _runs(exercise: str) -> int:
    """How many sandboxed runs one submission can take (one per exercise with code)."""
    ids = exercises.EXERCISE_IDS if exercise == "todos" else (exercise,)
    return max(1, sum(1 for ex in ids if exercises.code_criteria(ex)))


def write(out: Path, exercise: str, timeout: float) -> list[Path]:
    platform_timeout = int(min(PLATFORM_TIMEOUT_MAX, max(60, _runs(exercise) * timeout + 40)))
    config = {"platform": "prairielearn", "exercise": exercise, "nota_max": None, "timeout": timeout,
              "deadline": platform_timeout - DEADLINE_MARGIN}
    tests = out / "tests"
    corretor = vendor(tests / "corretor")
    (corretor / CONFIG_NAME).write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    entry = tests / "corrigir.sh"
    entry.write_text(ENTRYPOINT, encoding="utf-8")
    entry.chmod(0o755)
    title = "Lição 2 (checkpoints): todos os exercícios" if exercise == "todos" else exercises.load(exercise)["title"]
    info = {
        "uuid": str(uuid.uuid4()),
        "title": title,
        "topic": "Checkpoints",
        "tags": ["checkpoints", "licao-2"],
        "type": "v3",
        "singleVariant": True,
        "gradingMethod": "External",
        "externalGradingOptions": {
            "enabled": True,
            "image": IMAGE,
            "entrypoint": "/grade/tests/corrigir.sh",
            "timeout": platform_timeout,
        },
    }
    (out / "info.json").write_text(json.dumps(info, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    (out / "question.html").write_text(QUESTION_HTML.format(name=EXPORT_NAME), encoding="utf-8")
    return [out / "info.json", out / "question.html", entry]


QUESTION_HTML = """<pl-question-panel>
  <p>Faça os exercícios na página da lição e clique em <strong>Exportar respostas</strong>. Envie aqui o
  arquivo baixado com o nome <code>{name}</code> (se o site acrescentou o seu nome ao arquivo, renomeie-o).
  Ele leva o seu código e as suas respostas.</p>
</pl-question-panel>

<pl-file-upload file-names="{name}"></pl-file-upload>

<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
"""


def _files_from_data(data_path: Path, dest: Path) -> int:
    """The files of `submitted_answers._files` (base64, the format externalGrading.md documents), for
    a submission whose /grade/student is empty. Names are reduced to their last component."""
    try:
        with open(data_path, encoding="utf-8") as handle:
            files = (json.load(handle).get("submitted_answers") or {}).get("_files") or []
    except (OSError, ValueError, AttributeError):
        return 0
    count = 0
    for item in files:
        if not isinstance(item, dict):
            continue
        name = os.path.basename(str(item.get("name") or ""))
        if not name or name.startswith("."):
            continue
        try:
            (dest / name).write_bytes(base64.b64decode(str(item.get("contents") or ""), validate=True))
            count += 1
        except (ValueError, OSError):
            continue
    return count


def results(outcome: Outcome) -> dict:
    if outcome.not_graded:
        return {"gradable": False, "message": f"Sem nota: {outcome.not_graded}",
                "format_errors": [outcome.not_graded], "output": outcome.student_text(), "tests": []}
    return {
        "gradable": True,
        "score": outcome.fraction,
        "message": outcome.summary[0],
        "output": outcome.student_text(),
        "tests": [{"name": t.name if len({x.exercise for x in outcome.tests}) == 1 else f"{t.exercise} · {t.name}",
                   "points": t.score, "max_points": t.points, "message": t.message, "output": ""}
                  for t in outcome.tests],
    }


def main(argv: list[str]) -> int:
    base = Path(argv[0]) if argv else Path("/grade")
    root = base / "tests" / "corretor"
    try:
        config = load_config(root)
        with tempfile.TemporaryDirectory(prefix="prairielearn-") as work:
            student = base / "student"
            if not (student.is_dir() and any(student.iterdir())):
                student = Path(work) / "dados"
                student.mkdir()
                _files_from_data(base / "data" / "data.json", student)
            # PrairieLearn says who submitted; the grader never takes a name from the file.
            outcome = grade(root, student, Path(work) / "correcao", config, None, None, places=4)
        data = results(outcome)
        for line in outcome.log:  # the job's log: course staff only
            print(line)
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        data = {"gradable": False, "message": "Sem nota: erro interno do autograder.",
                "format_errors": ["erro interno do autograder"], "output": "", "tests": []}
    folder = base / "results"
    folder.mkdir(parents=True, exist_ok=True)  # externalGrading.md: not created for us
    temporary = folder / ".results.json.tmp"
    temporary.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, folder / "results.json")
    print(data["message"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
