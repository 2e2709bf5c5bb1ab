"""What the autograders share: run the CLI on one student's files, read its JSON report, and say per
criterion what the platform shows, or why there is no grade (`not_graded`)."""

from __future__ import annotations

# Nothing here trusts the student's files for identity: the platform says who sent them.

import json
import os
import signal
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from types import SimpleNamespace

from .. import exercises
from ..grading import CLOSED_CODE_FEEDBACK, diagnosis_settled
from ..judge.ends import end_sentence, end_text

# Written beside graders/ in every generated autograder: what the instructor chose.
CONFIG_NAME = "autograder.json"
# The page's own words (graders.grading.CLOSED_CODE_FEEDBACK, shown by lesson/widget.js): a failed code
# criterion of an exercise with `feedback_after_questions` says only this until the diagnosis is open.
CLOSED_FEEDBACK = CLOSED_CODE_FEEDBACK
ONLY_EXPORT_TEXT = ("só no arquivo exportado: este critério se responde com o arquivo .json que o botão "
                    "Exportar respostas do site baixa")
# A file bigger than this is no submission of this lesson (the CLI itself reads at most 1 MB of one).
MAX_COPY_BYTES = 32 << 20
# Time the CLI gets, after a stop is asked (SIGINT, its Ctrl+C), to report what it graded.
STOP_GRACE = 5.0


@dataclass
class Test:
    """One criterion, as every platform shows it."""
    exercise: str
    id: str
    name: str           # the neutral title (exercise.toml `title`): never the answer
    points: float       # what the criterion is worth
    passed: bool
    state: str          # the CLI's state: ok, falhou, só no arquivo exportado, não entregue, não avaliado
    message: str        # what the student may read
    full: str           # the grader's own message, for the instructor (differs when `closed`)
    closed: bool = False

    @property
    def score(self) -> float:
        return self.points if self.passed else 0.0


@dataclass
class Outcome:
    tests: list[Test]
    score: float | None            # None: not graded (see not_graded)
    max_score: float
    not_graded: str | None         # why there is no grade, in Portuguese; None when graded
    summary: list[str] = field(default_factory=list)     # lines for the student (the whole run)
    log: list[str] = field(default_factory=list)         # lines for the instructor only
    elapsed: float = 0.0

    @property
    def fraction(self) -> float | None:
        if self.score is None:
            return None
        return self.score / self.max_score if self.max_score else 0.0

    def student_text(self) -> str:
        return "\n".join(self.summary)


# How a run ended when it did not end by itself (graders/judge/ends.py), as the criteria word it: said
# once for the whole run, where the student reads it even when the criteria themselves stay closed.
_RUN_ENDS = [SimpleNamespace(end=end, limits=None, code=None, report=None) for end in ("timeout", "flood", "protocol")]
# A time-out after the function returned (a thread or a process kept the run alive) has words of its own.
_RUN_ENDS.append(SimpleNamespace(end="timeout", limits=None, code=None, report={"kind": "ok"}))


def run_endings(tests: list[Test]) -> list[str]:
    """["nivel-2: Tempo esgotado — …."] for each exercise whose run the grader had to stop."""
    lines = []
    for ex in dict.fromkeys(t.exercise for t in tests):
        texts = " ".join(t.full for t in tests if t.exercise == ex)
        for trace in _RUN_ENDS:
            if end_text(trace) in texts:
                lines.append(f"{ex}: {end_sentence(trace)}")
    return lines


def load_config(root: Path) -> dict:
    with open(root / CONFIG_NAME, encoding="utf-8") as handle:
        return json.load(handle)


# --- the submission, copied -----------------------------------------------------------------


def gather(source: Path, dest: Path) -> list[str]:
    """Copy the regular files under `source` into `dest` (same relative paths); returns what was left
    out and why. A link is never followed: a student could point one at the grader's own files."""
    left_out = []
    dest.mkdir(parents=True, exist_ok=True)
    if not source.is_dir():
        return left_out
    for folder, dirs, files in os.walk(source, followlinks=False):
        rel = Path(folder).relative_to(source)
        for name in sorted(dirs):
            if os.path.islink(os.path.join(folder, name)):
                left_out.append(f"{rel / name}: link simbólico, não lido")
            else:
                (dest / rel / name).mkdir(exist_ok=True)
        for name in sorted(files):
            path = os.path.join(folder, name)
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode):
                left_out.append(f"{rel / name}: não é um arquivo comum (link ou outro tipo), não lido")
            elif info.st_size > MAX_COPY_BYTES:
                left_out.append(f"{rel / name}: maior que {MAX_COPY_BYTES >> 20} MB, não lido")
            else:
                with open(path, "rb") as src, open(dest / rel / name, "wb") as out:
                    out.write(src.read())
    return left_out


# --- the CLI --------------------------------------------------------------------------------


@dataclass
class CliRun:
    doc: dict | None        # the JSON report, when the CLI wrote one
    returncode: int | None
    stderr: str
    timed_out: bool         # the autograder's own total deadline stopped it
    deadline: float


def run_cli(root: Path, folder: Path, config: dict) -> CliRun:
    """`python -m graders EXERCISE FOLDER --format json` from the vendored `root`, stopped (as by
    Ctrl+C, then killed) when the total deadline passes."""
    deadline = float(config["deadline"])
    command = [sys.executable, "-m", "graders", config["exercise"], str(folder), "--format", "json",
               "--timeout", str(config["timeout"]), "--zip", "--no-progress"]
    if config.get("nota_max"):
        command += ["--nota-max", str(config["nota_max"])]
    env = {**os.environ, "PYTHONPATH": str(root)}
    process = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, start_new_session=True)
    timed_out = False
    try:
        out, err = process.communicate(timeout=deadline)
    except subprocess.TimeoutExpired:
        timed_out = True
        _signal_group(process.pid, signal.SIGINT)  # the CLI's Ctrl+C: it reports what it graded
        try:
            out, err = process.communicate(timeout=STOP_GRACE)
        except subprocess.TimeoutExpired:
            _signal_group(process.pid, signal.SIGKILL)
            out, err = process.communicate()
    try:
        doc = json.loads(out.decode("utf-8")) if out.strip() else None
    except (UnicodeDecodeError, ValueError):
        doc = None
    return CliRun(doc, process.returncode, err.decode("utf-8", "replace"), timed_out, deadline)


def _signal_group(pid: int, sig: int):
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


# --- the not-graded state -------------------------------------------------------------------


def not_graded(run: CliRun) -> str | None:
    """Why this submission gets no grade at all, or None when it is graded.

    The ONE place the autograders decide it (PrairieLearn's `gradable: false`, Gradescope's results
    without a score, Classroom's runner with `max_score` 0 and status `error`). It follows the CLI's
    own not-graded state (graders/cli/classreport.py, `gradable`): a submission row with
    `gradable: false` has no grade, and `ungraded_reason` says why. Around the report it adds what
    only the autograder sees: no report at all (the CLI failed, or the total deadline killed it), a run
    stopped before the end, and a submission with no file to grade.
    A failing criterion, a crash, an infinite loop (the per-run timeout) are grades, not this."""
    if run.doc is None:
        if run.timed_out:
            return (f"a correção passou do tempo total do autograder ({run.deadline:.0f} s) e foi parada "
                    "antes de julgar")
        return f"o corretor terminou sem relatório (código de saída {run.returncode})"
    report = run.doc.get("report") or {}
    if report.get("interrupted"):
        return (f"a correção passou do tempo total do autograder ({run.deadline:.0f} s) e foi parada antes do fim"
                if run.timed_out else "a correção foi interrompida antes do fim")
    submissions = run.doc.get("submissions") or []
    if not submissions:
        return "a entrega não tem nenhum arquivo .py ou .json para corrigir"
    for sub in submissions:
        if sub.get("gradable") is False or (sub.get("score") or {}).get("grade", 0) is None:
            reasons = [sub.get("ungraded_reason"), sub.get("error")]
            reasons += [r.get("error") for r in (sub.get("exercises") or {}).values()]
            reason = "; ".join(dict.fromkeys(r for r in reasons if r))
            return f"{sub.get('shown') or sub.get('file')}: {reason or sub.get('status')}"
    return None


# --- criteria into tests --------------------------------------------------------------------


def _exercise_results(sub: dict, single: str | None) -> dict[str, dict]:
    """{exercise: {state, criteria, files}} of one submission row of the JSON report."""
    files = [f["file"] for f in sub.get("files") or []]
    if single:
        return {single: {"state": sub["state"], "criteria": sub["criteria"], "files": files}}
    return {ex: {"state": r["state"], "criteria": r["criteria"], "files": [r["file"]] if r.get("file") else files}
            for ex, r in sub["exercises"].items()}


def _best(rows: list[dict], exercise: str, weights: dict) -> dict:
    """The CLI's own merge rule across rows (every file is this one student's, whatever name it
    carries): the graded result with the most met weight; on a tie, the later one."""
    def key(item):
        index, result = item
        met = sum(weights.get(c["id"], 1) for c in result["criteria"] if c["state"] == "ok")
        return (result["state"] == "avaliado", met, index)
    candidates = [(i, r[exercise]) for i, r in enumerate(rows) if exercise in r]
    return max(candidates, key=key)[1]


def allocate(weights: list[tuple[tuple, float]], total: float | None, places: int) -> dict[tuple, int]:
    """{key: points in units of 10**-places}: each weight's share of `total` (or the weight itself
    when `total` is None), rounded so that the shares add up to exactly the total (largest remainder)."""
    scale = 10 ** places
    whole = sum(w for _, w in weights)
    if total is None or whole == 0:
        return {k: round(w * scale) for k, w in weights}
    target = round(total * scale)
    exact = {k: target * w / whole for k, w in weights}
    units = {k: int(v) for k, v in exact.items()}
    short = target - sum(units.values())
    for k in sorted(exact, key=lambda k: exact[k] - units[k], reverse=True)[:short]:
        units[k] += 1
    return units


def build(run: CliRun, total: float | None, places: int = 2) -> Outcome:
    """The platform-neutral outcome of one CLI run: one Test per criterion of the assignment, with
    its points (`total` shared by weight, or the raw weights when None)."""
    reason = not_graded(run)
    doc = run.doc or {}
    report = doc.get("report") or {}
    assignment = report.get("assignment") or []
    single = report.get("mode") if assignment == [report.get("mode")] else None
    weights = report.get("weights") or {}
    rows = [_exercise_results(s, single) for s in doc.get("submissions") or [] if reason is None]
    keyed, chosen, open_feedback = [], {}, {}
    for ex in assignment:
        w = weights.get(ex, {"exercise": 1, "criteria": {}})
        if rows:
            chosen[ex] = _best(rows, ex, w["criteria"])
            # The page's rule, on the CLI's criteria (a bare .py answers no question: never open).
            open_feedback[ex] = diagnosis_settled(ex, {c["id"] for c in chosen[ex]["criteria"]
                                                       if c.get("passed") or c.get("revealed")})
        for cid in (report.get("columns") or {}).get(ex, {}).get("criteria", {}):
            keyed.append(((ex, cid), w["exercise"] * w["criteria"].get(cid, 1)))
    units = allocate(keyed, total, places)
    scale = 10 ** places
    tests = []
    for (ex, cid), _w in keyed:
        title = report["columns"][ex]["criteria"][cid]
        c = next((c for c in chosen[ex]["criteria"] if c["id"] == cid), None) if ex in chosen else None
        state = c["state"] if c else "não avaliado"
        full = (c or {}).get("message") or ""
        asked = cid not in exercises.code_criteria(ex)
        closed = state == "falhou" and not asked and not open_feedback.get(ex, True)
        if state == "ok":
            message = "ok"
        elif state == "falhou":
            message = CLOSED_FEEDBACK if closed else (full or "falhou")
        elif state == "só no arquivo exportado":
            message = ONLY_EXPORT_TEXT
        else:
            message = state
        if c and c.get("revealed"):
            message += " (resposta revelada)"
        tests.append(Test(ex, cid, title, units[(ex, cid)] / scale, state == "ok", state, message, full, closed))
    max_units = sum(units.values())
    # The whole score from the weights themselves (as the CLI computes its grade), not from the
    # rounded shares: the reference solution gets exactly the maximum, a third gets a third.
    whole = sum(w for _, w in keyed)
    met = sum(w for (key, w), t in zip(keyed, tests) if t.passed)
    score = None if reason else (round(max_units * met / whole) / scale if whole else 0.0)
    outcome = Outcome(tests, score, max_units / scale, reason)
    if report:
        outcome.log.append(f"Corretor {report.get('grader_version')}; isolamento {report.get('isolation')}: "
                           f"{report.get('fences_text')}")
    for sub in doc.get("submissions") or []:
        if sub.get("inspection_note"):
            outcome.log.append(f"{sub.get('shown')}: {sub['inspection_note']} (não muda a nota)")
    for item in doc.get("ignored") or []:
        outcome.summary.append(f"Ignorado: {item.get('path')} ({item.get('reason')})")
    closed = [t for t in tests if t.closed]
    for t in closed:
        outcome.log.append(f"{t.exercise} / {t.name} (fechado para o aluno até responder o diagnóstico): {t.full}")
    if not run.stderr.strip() == "":
        outcome.log.append("Saída de erros do corretor:\n" + run.stderr.strip()[-4000:])
    return outcome


def grade(root: Path, submission: Path, work: Path, config: dict, who: str | None, total: float | None,
          places: int = 2) -> Outcome:
    """Everything an autograder does between reading the platform's input and writing its results."""
    started = time.monotonic()
    folder = work / "entrega"
    left_out = gather(submission, folder)
    run = run_cli(root, folder, config)
    outcome = build(run, total, places)
    head = [f"Entrega de: {who}."] if who else []
    if outcome.not_graded:
        head.append(f"Sem nota: {outcome.not_graded}. Isto não é um zero: o professor vai olhar esta entrega.")
    else:
        head.append(f"Pontos: {_number(outcome.score)} de {_number(outcome.max_score)}.")
    outcome.summary[:0] = head + run_endings(outcome.tests) + [f"Não lido: {item}" for item in left_out]
    outcome.elapsed = time.monotonic() - started
    return outcome


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".").replace(".", ",")
