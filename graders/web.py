"""What the page's Web Worker calls inside Pyodide: JSON in, JSON out, nothing else shared."""

from __future__ import annotations

import json

from . import exercises, playground
from .grading import grade
from .submission import Submission, SubmissionError


def handle(request_json: str) -> str:
    """One request from the page: {"action": "grade"|"run"|"solution"|"demo", "exercise", "code", "answers", "texts",
    "revealed"}; `revealed`: the criteria whose answer the student chose to see."""
    request = json.loads(request_json)
    action, exercise_id = request.get("action"), request.get("exercise")
    try:
        if action == "grade":
            answers = request.get("answers")
            texts = request.get("texts") if isinstance(request.get("texts"), dict) else {}
            revealed = request.get("revealed") if isinstance(request.get("revealed"), list) else []
            submission = Submission(request.get("code"), answers if answers is not None else {}, texts,
                                    revealed=[r for r in revealed if isinstance(r, str)])
            verdict = grade(exercise_id, submission)
            return json.dumps({"ok": True, "verdict": verdict.to_dict()}, ensure_ascii=False)
        if action == "run":
            return json.dumps({"ok": True, "run": playground.run(exercise_id, request.get("code") or "")}, ensure_ascii=False)
        if action == "demo":
            from . import demo

            return json.dumps({"ok": True, "demo": demo.run()}, ensure_ascii=False)
        if action == "solution":
            name = exercises.load(exercise_id).get("solution")
            return json.dumps({"ok": True, "solution": exercises.read_text(exercise_id, name) if name else None}, ensure_ascii=False)
    except (exercises.UnknownExercise, SubmissionError) as exc:
        return json.dumps({"ok": False, "error": str(exc)}, ensure_ascii=False)
    return json.dumps({"ok": False, "error": f"ação desconhecida: {action!r}"})
