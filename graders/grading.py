"""One entry point for every exercise: `grade(exercise_id, submission)` -> `Verdict`.

Code is run once by a `run(source, filename, job) -> Trace` (the CLI's sandboxed kernel tap, or the
browser's Pyodide tap); the judges read only that trace."""

from __future__ import annotations

import sys
import threading

from . import exercises
from .guard import CodeError, compile_student
from .judge import answers, nivel1, nivel2, timeline
from .submission import Submission, SubmissionError
from .judge.verdict import CriterionResult, Verdict


_sandbox = None
_sandbox_made = threading.Lock()  # callers on several threads share one sandbox, never make two


def default_run():
    """Where student code runs when the caller does not say: Pyodide's tap in the browser; elsewhere
    one shared sandbox of graders.sandbox (bubblewrap when it works here, else reduced mode)."""
    global _sandbox
    if sys.platform == "emscripten":
        from .trace.browser import run_in_pyodide

        return run_in_pyodide
    with _sandbox_made:
        if _sandbox is None:
            import atexit

            from .sandbox.sandbox import Sandbox, bwrap_problem

            _sandbox = Sandbox(isolated=not bwrap_problem())
            atexit.register(_sandbox.close)
    return _sandbox.run


def power_graded(exercise_id: str) -> bool:
    return exercises.load(exercise_id).get("grading", {}).get("power_loss") == "graded"


def grade_code(exercise_id: str, source: str, filename: str, run) -> tuple[dict[str, CriterionResult], str, dict | None]:
    ids = exercises.code_criteria(exercise_id)
    try:
        compile_student(source, filename)
    except CodeError as exc:
        return {c: CriterionResult(c, False, str(exc)) for c in ids}, "", None
    if exercise_id == "nivel-1":
        trace = (run or default_run())(source, filename, nivel1.job())
        return {nivel1.CID: nivel1.judge(trace)}, trace.output, None
    graded = power_graded(exercise_id)
    trace = (run or default_run())(source, filename, nivel2.job())
    results, judge = nivel2.judge(trace, graded)
    return results, trace.output, timeline.describe(judge, graded)


# A failed code criterion while the diagnosis its explanation would give away is still open.
CLOSED_CODE_FEEDBACK = ("O diagnóstico vem primeiro: acerte as perguntas de diagnóstico (ou peça para ver a resposta) "
                        "e verifique de novo para ver por que esta verificação falhou. Para ver o que o seu código "
                        "faz, use Executar.")


def diagnosis_open(exercise_id: str, results: dict[str, CriterionResult]) -> bool:
    """Whether the code criteria may explain themselves. In an exercise whose questions diagnose its
    starter (`feedback_after_questions` in exercise.toml), the explanations of the code (messages,
    disk views, advice, the crash timeline) would answer those questions: they open only once every
    question's criterion is answered right or its answer revealed, never by a guess being tried."""
    return diagnosis_settled(exercise_id, {cid for cid, r in results.items() if r.passed or r.revealed})


def diagnosis_settled(exercise_id: str, settled: set) -> bool:
    """The same rule on the ids of the criteria that are right or revealed (the autograders read them
    from the CLI's report)."""
    if not exercises.load(exercise_id).get("feedback_after_questions"):
        return True
    return {q["criterion"] for q in exercises.questions(exercise_id)} <= set(settled)


def close_code_feedback(results: dict[str, CriterionResult], code_ids) -> None:
    """Keep only ok/falhou and a neutral line on the code criteria; the timeline goes (returns None)."""
    for cid in code_ids:
        result = results.get(cid)
        if result is None:
            continue
        result.message = "" if result.passed else CLOSED_CODE_FEEDBACK
        result.hint, result.disk = "", None
    return None


def grade(exercise_id: str, submission: Submission, filename: str = "solucao.py", run=None,
          close_diagnosis: bool = True) -> Verdict:
    """`run(source, filename, job) -> Trace`: where student code runs (default: see default_run).
    `close_diagnosis`: apply the diagnosis rule (diagnosis_open) to this verdict, as the page does for
    the student; the CLI's reports are the instructor's and keep every explanation (the student-facing
    texts it writes, Moodle's comments and the autograders' student view, close them on their own)."""
    meta_ids = exercises.criterion_ids(exercise_id)  # raises UnknownExercise
    code_ids = exercises.code_criteria(exercise_id)
    results: dict[str, CriterionResult] = {}
    output, crashes = "", None
    if submission.answers is None and not code_ids:
        raise SubmissionError(f"o exercício {exercise_id!r} se responde com o arquivo .json exportado pelo site")
    # Only a criterion answered by questions can be revealed (and only the student reveals it).
    revealed = set(submission.revealed or ()) - set(code_ids)
    if submission.answers is not None:
        results.update(answers.grade_answers(exercise_id, submission.answers, revealed))
    if code_ids:
        if submission.code is None or not submission.code.strip():
            for cid in code_ids:
                results[cid] = CriterionResult(cid, False, "Não há código para avaliar.")
        else:
            graded, output, crashes = grade_code(exercise_id, submission.code, filename, run)
            results.update(graded)
    shown = meta_ids if submission.answers is not None else code_ids
    labels = {c["id"]: c["label"] for c in exercises.load(exercise_id)["criteria"]}
    for c in shown:
        # The full criterion states the answer: only once it is earned, or chosen ("Mostrar a resposta").
        if results[c].passed or results[c].revealed:
            results[c].label = labels[c]
    if close_diagnosis and submission.answers is not None and not diagnosis_open(exercise_id, results):
        crashes = close_code_feedback(results, code_ids)
    verdict = Verdict(exercise_id, [results[c] for c in shown], output, timeline=crashes)
    if submission.answers is not None:
        texts = submission.texts or {}
        open_ = {c for c in shown if results[c].passed or results[c].revealed}
        verdict.writings = [
            {"id": w["id"], "prompt": w["prompt"], "text": texts.get(w["id"], "") if isinstance(texts.get(w["id"]), str) else "",
             # The model explanation answers its criterion: the same rule as the label.
             "model": w["model"] if w.get("criterion") in open_ or "criterion" not in w else ""}
            for w in exercises.writings(exercise_id)
        ]
    return verdict
