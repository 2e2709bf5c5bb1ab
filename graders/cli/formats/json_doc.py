"""`--format json`: the class report as one JSON document (schema: graders/cli/report.schema.json, checked by the tests).
With one exercise, each submission carries that exercise's fields at its top level (and no
"exercises" object); with several, one object per exercise under "exercises"."""

from __future__ import annotations

import json

ROW_FIELDS = ("file", "shown", "student", "email", "id_number", "identity", "identity_note", "roster", "kind", "status", "passed",
              "score", "files", "exercises", "inspection", "inspection_note", "gradable", "ungraded_reason", "unread")
EXERCISE_FIELDS = ("exercise", "state", "criteria", "timeline", "writings")


def _row(row: dict, single: str | None) -> dict:
    data = {k: row[k] for k in ROW_FIELDS if not (single and k == "exercises")}
    if "error" in row:
        data["error"] = row["error"]
    if single:
        result = row["exercises"][single]
        data.update({k: result[k] for k in EXERCISE_FIELDS})
        if "error" in result:
            data["error"] = result["error"]
        if result.get("limit"):
            data["limit"] = True
    return data


def render(report: dict) -> str:
    meta = report["report"]
    single = meta["mode"] if meta["assignment"] == [meta["mode"]] else None
    head = {"report": meta, "summary": report["summary"], "possible_copies": report["possible_copies"],
            "ignored": report["ignored"]}
    # One submission a line: still one JSON document, and the C encoder (an indented dump is pure Python).
    parts = [json.dumps(_row(r, single), ensure_ascii=False, allow_nan=False) for r in report["students"]]
    text = json.dumps(head, ensure_ascii=False, allow_nan=False, indent=1)
    return text[:-2] + ',\n "submissions": [\n' + ",\n".join(parts) + "\n ]\n}\n"
