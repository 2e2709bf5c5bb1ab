"""The result of grading one submission: one entry per criterion, in the exercise's order."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class CriterionResult:
    id: str
    passed: bool
    message: str = ""
    # Advice shown even when the criterion passed (e.g. fsync); never changes `passed`.
    hint: str = ""
    # What checkpoint.json held at the simulated crash that failed, for the disk view.
    disk: dict | None = None
    # The criterion's full text: sent only once it passed or its answer was revealed (until then
    # the page shows a neutral title, which gives nothing away).
    label: str = ""
    # The student chose "Mostrar a resposta" for this criterion (recorded in the export).
    revealed: bool = False
    # The right option(s) and why, sent only for a revealed criterion.
    answer: str = ""


@dataclass
class Verdict:
    exercise: str
    criteria: list[CriterionResult] = field(default_factory=list)
    # What the student's code printed while being graded (capped).
    output: str = ""
    file: str = ""
    # Every simulated crash and what it left on disk (graders.judge.timeline), for the timeline.
    timeline: dict | None = None
    # The written answers ({id, prompt, text, model}): not graded, shown beside a model answer.
    writings: list | None = None

    @property
    def passed(self) -> bool:
        return bool(self.criteria) and all(c.passed for c in self.criteria)

    def to_dict(self) -> dict:
        criteria = []
        for c in self.criteria:
            item = {"id": c.id, "passed": c.passed, "message": c.message}
            if c.label:
                item["label"] = c.label
            if c.hint:
                item["hint"] = c.hint
            if c.revealed:
                item["revealed"] = True
            if c.answer:
                item["answer"] = c.answer
            if c.disk is not None:
                item["disk"] = c.disk
            criteria.append(item)
        result = {"file": self.file, "exercise": self.exercise, "passed": self.passed, "criteria": criteria}
        if self.output:
            result["output"] = self.output
        if self.timeline is not None:
            result["timeline"] = self.timeline
        if self.writings:
            result["writings"] = self.writings
        return result


def failed_all(exercise: str, ids: list[str], message: str) -> Verdict:
    """Every criterion failed for the same reason (syntax error, sys.exit, time limit...)."""
    return Verdict(exercise, [CriterionResult(i, False, message) for i in ids])

