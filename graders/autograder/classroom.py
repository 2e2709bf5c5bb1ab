"""GitHub Classroom: write the template repository (workflow, vendored graders, entrega/), and the
grading step that emits the runner result Classroom's reporter reads."""

from __future__ import annotations

# Contract (classroom-resources/autograding-grading-reporter, read at 43c2d9f, not vendored):
# src/main.js:6-13 reads, for each id of the `runners` input, the environment variable
# `<ID upper-cased>_RESULTS`, base64 of a JSON object; src/notify-classroom.js:6-31 adds up
# `tests[].score` and `max_score` of every runner whose `max_score` is truthy and posts
# "Points <total>/<max>" (nothing when every `max_score` is 0); src/main.js:19-23 fails the job on a
# runner `status` of "fail" or "error"; src/console-results.js:23-39 prints each test by `status`
# ("pass" ✅, "error" with its `message`, otherwise ❌). The runner object is the one the
# classroom-resources runners emit (autograding-command-grader src/main.js:16-34):
# {version: 1, status, max_score, tests: [{name, status, score, message, test_code, filename,
# line_no, duration}]}. Not graded: status "error" and max_score 0, so no points are posted.
# The workflow's log is the student's own (their repository): nothing closed is printed there.

import base64
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

from .. import exercises
from .outcome import CONFIG_NAME, Outcome, grade, load_config
from .vendor import vendor

RUNNER_ID = "corretor"
STEP_MINUTES = 10
DEADLINE = STEP_MINUTES * 60 - 60
FOLDER = "entrega"

WORKFLOW = """# Gerado por `python -m graders autograder classroom`: corrige a pasta entrega/ a cada push.
# O passo "corretor" emite o resultado que o relatório do GitHub Classroom lê (RESULTS em base64);
# o dono do repositório é o aluno.
name: Autograding Tests
'on':
- push
- repository_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-24.04
    if: github.actor != 'github-classroom[bot]'
    steps:
    - name: Checkout code
      uses: actions/checkout@v4
    - name: Corrigir a entrega
      id: {runner}
      timeout-minutes: {minutes}
      env:
        PYTHONPATH: .corretor
        ALUNO: ${{{{ github.repository_owner }}}}
      run: python3 -m graders.autograder.classroom {folder}
    - name: Autograding Reporter
      uses: classroom-resources/autograding-grading-reporter@v1
      env:
        {env}_RESULTS: "${{{{steps.{runner}.outputs.result}}}}"
      with:
        runners: {runner}
"""

README = """# Entrega da Lição 2 (checkpoints)

Ponha nesta pasta o arquivo que o botão **Exportar respostas** do site baixa
(`respostas-licao-2.json`, com o seu código e as suas respostas) e/ou os seus `.py`
(`nivel-1.py`, `nivel-2.py`). A cada `git push`, a aba **Actions** corrige a entrega e o
GitHub Classroom registra os pontos. Não mexa em `.github/` nem em `.corretor/`.
"""


def write(out: Path, exercise: str, nota_max: float | None, timeout: float) -> list[Path]:
    config = {"platform": "classroom", "exercise": exercise, "nota_max": nota_max, "timeout": timeout,
              "deadline": DEADLINE}
    corretor = vendor(out / ".corretor")
    (corretor / CONFIG_NAME).write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    workflow = out / ".github" / "workflows" / "classroom.yml"
    workflow.parent.mkdir(parents=True, exist_ok=True)
    workflow.write_text(WORKFLOW.format(runner=RUNNER_ID, env=RUNNER_ID.upper(), minutes=STEP_MINUTES,
                                        folder=FOLDER), encoding="utf-8")
    folder = out / FOLDER
    folder.mkdir(exist_ok=True)
    (folder / "LEIA-ME.md").write_text(README, encoding="utf-8")
    ids = exercises.EXERCISE_IDS if exercise == "todos" else (exercise,)
    for ex in ids:  # the starters, named so that `todos` knows each file's exercise
        data = exercises.load(ex)
        if data.get("starter") and exercises.code_criteria(ex):
            shutil.copyfile(exercises.EXERCISES_DIR / ex / data["starter"], folder / f"{ex}.py")
    return [workflow, folder]


def runner_result(outcome: Outcome) -> dict:
    duration = round(outcome.elapsed * 1000)
    if outcome.not_graded:
        return {"version": 1, "status": "error", "max_score": 0,
                "tests": [{"name": "Sem nota", "status": "error", "score": 0, "message": outcome.not_graded,
                           "test_code": "", "filename": "", "line_no": 0, "duration": duration}]}
    several = len({t.exercise for t in outcome.tests}) > 1
    points = outcome.max_score
    tests = [{"name": f"{t.exercise} · {t.name}" if several else t.name, "status": "pass" if t.passed else "fail",
              "score": _plain(t.score), "message": t.message, "test_code": "", "filename": "", "line_no": 0,
              "duration": duration} for t in outcome.tests]
    return {"version": 1, "status": "pass" if all(t.passed for t in outcome.tests) else "fail",
            "max_score": _plain(points), "tests": tests}


def _plain(value: float):
    return int(value) if float(value).is_integer() else value


def encode(result: dict) -> str:
    return base64.b64encode(json.dumps(result, ensure_ascii=False).encode("utf-8")).decode("ascii")


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else Path(FOLDER)
    root = Path(os.environ.get("PYTHONPATH", ".corretor").split(os.pathsep)[0]).resolve()
    started = time.monotonic()
    try:
        config = load_config(root)
        # Whole points when the instructor gave an integer total (Classroom's points are whole); the
        # raw weights otherwise (1 per criterion by default).
        places = 0 if config.get("nota_max") is not None and float(config["nota_max"]).is_integer() else 2
        with tempfile.TemporaryDirectory(prefix="classroom-") as work:
            outcome = grade(root, folder, Path(work), config, os.environ.get("ALUNO") or None,
                            config.get("nota_max"), places=places)
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        outcome = Outcome([], None, 0, "erro interno do autograder", ["Sem nota: erro interno do autograder."])
        outcome.elapsed = time.monotonic() - started
    result = runner_result(outcome)
    print(outcome.student_text())
    output = os.environ.get("GITHUB_OUTPUT")
    if output:
        with open(output, "a", encoding="utf-8") as handle:
            handle.write(f"result={encode(result)}\n")
    else:
        print(f"result={encode(result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
