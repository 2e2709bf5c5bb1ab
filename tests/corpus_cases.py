"""The grading corpus: submissions under tests/corpus/ with the verdict each must get."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from graders import exercises

CORPUS = Path(__file__).resolve().parent / "corpus"


@dataclass
class Case:
    name: str
    exercise: str
    path: Path
    expected: dict[str, bool]
    why: str
    cli_only: bool = False
    hinted: list[str] = field(default_factory=list)  # criteria that must carry a hint
    says: str = ""  # text some failure message must contain

    @property
    def id(self) -> str:
        return f"{self.exercise}/{self.path.name}"


def _code_case(exercise: str, path: Path) -> Case:
    head = dict(re.findall(r"^# (\w+): (.*)$", path.read_text(encoding="utf-8"), re.M))
    expected = {k: v == "ok" for k, v in (kv.split("=") for kv in head["expect"].split())}
    return Case(
        path.stem, exercise, path, expected, head.get("why", ""),
        cli_only=head.get("mode") == "cli-only",
        hinted=head.get("hint", "").split(),
        says=head.get("says", ""),
    )


def _answer_cases(path: Path) -> list[Case]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    cases = []
    for exercise, spec in doc["_expect"].items():
        ids = exercises.criterion_ids(exercise)
        if spec == "all":
            expected = dict.fromkeys(ids, True)
        elif spec == "none":
            expected = dict.fromkeys(ids, False)
        else:
            expected = {i: spec.get(i, True) for i in ids}
        cases.append(Case(path.stem, exercise, path, expected, doc["_why"]))
    return cases


def all_cases() -> list[Case]:
    cases = []
    for exercise in ("nivel-1", "nivel-2"):
        cases += [_code_case(exercise, p) for p in sorted((CORPUS / exercise).glob("*.py"))]
    for path in sorted((CORPUS / "respostas").glob("*.json")):
        cases += _answer_cases(path)
    return cases
