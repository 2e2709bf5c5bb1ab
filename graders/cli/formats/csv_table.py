"""`--format csv`, for programs: one row per student, the same columns in every row. With one
exercise: file, exercise, passed, one column per criterion, error, `texto:<id>`, student, met, graded;
with several: a group of columns per exercise (`<ex>:passed`, `<ex>:<criterion>`, `<ex>:met`,
`<ex>:graded`, `<ex>:error`, `<ex>:texto:<id>`). Identity and whole-assignment score columns, then
`inspection` (graders.cli.inspection's note, empty when there is none), end every row."""

from __future__ import annotations

import csv
import io

from ..report import REVEALED, clean, revealed, rounded

STATE = {"ok": "ok", "falhou": "falhou"}


def cell(value) -> str:
    """A cleaned cell that a spreadsheet will not run as a formula."""
    text = clean(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def _state(c: dict) -> str:
    return STATE.get(c["state"], c["state"]) + (f" ({REVEALED})" if revealed(c) else "")


def _texts(result: dict, ids: list[str]) -> list[str]:
    found = {w["id"]: w["text"] for w in result["writings"] if isinstance(w.get("text"), str)}
    return [cell(found.get(i, "")) for i in ids]


TAIL = ["email", "id_number", "roster", "status", "score_met", "score_total", "grade", "inspection", "not_graded",
        "identity_note"]


def _tail(row: dict) -> list:
    s = row["score"]
    return [cell(row["email"] or ""), cell(row["id_number"] or ""), cell(row["roster"] or ""), row["status"],
            s["met"], s["total"], rounded(s["exact"], 2), cell(row["inspection_note"] or ""), cell(_not_graded(row)),
            cell(row["identity_note"] or "")]


def _not_graded(row: dict) -> str:
    """Why the row has no grade, and every file of the student the CLI did not grade."""
    parts = [row["ungraded_reason"]] if row["ungraded_reason"] else []
    parts += [f"{u['path']}: {u['reason']}" for u in row["unread"] if u["path"] not in (row["ungraded_reason"] or "")]
    return "; ".join(parts)


def render(report: dict) -> str:
    meta = report["report"]
    assignment = meta["assignment"]
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    names = {ex: list(meta["columns"][ex]["criteria"]) for ex in assignment}
    texts = {ex: meta["columns"][ex]["writings"] for ex in assignment}
    if assignment == [meta["mode"]]:
        ex = meta["mode"]
        writer.writerow(["file", "exercise", "passed", *names[ex], "error", *(f"texto:{t}" for t in texts[ex]),
                         "student", "met", "graded", *TAIL])
        for row in report["students"]:
            r = row["exercises"][ex]
            states = {c["id"]: _state(c) for c in r["criteria"]}
            error = r.get("error") or row.get("error") or ""
            graded = r["state"] == "avaliado"
            writer.writerow([cell(row["shown"] or ""), ex, "sim" if r["passed"] else "não",
                             *(states.get(i, "") for i in names[ex]), cell(error), *_texts(r, texts[ex]),
                             cell(row["student"] or ""), r["score"]["met"] if graded else "",
                             r["score"]["graded"] if graded else "", *_tail(row)])
        return buffer.getvalue()
    header = ["file", "student", "kind", "status", "passed", "met", "graded"]
    for ex in assignment:
        header += [f"{ex}:passed", *(f"{ex}:{c}" for c in names[ex]), f"{ex}:met", f"{ex}:graded", f"{ex}:error",
                   *(f"{ex}:texto:{t}" for t in texts[ex])]
    writer.writerow(header + ["error", *TAIL])
    for row in report["students"]:
        graded = [r for r in row["exercises"].values() if r["state"] == "avaliado"]
        line = [cell("; ".join(f["shown"] for f in row["files"])), cell(row["student"] or ""), row["kind"] or "",
                row["status"], "sim" if row["passed"] else "não",
                sum(r["score"]["met"] for r in graded) if graded else "",
                sum(r["score"]["graded"] for r in graded) if graded else ""]
        for ex in assignment:
            r = row["exercises"][ex]
            ok = r["state"] == "avaliado"
            states = {c["id"]: _state(c) for c in r["criteria"]}
            line += ["" if not ok else ("sim" if r["passed"] else "não"), *(states.get(c, "") for c in names[ex]),
                     r["score"]["met"] if ok else "", r["score"]["graded"] if ok else "",
                     cell(r.get("error", "") or ("" if ok else r["state"])), *_texts(r, texts[ex])]
        writer.writerow(line + [cell(row.get("error", "")), *_tail(row)])
    return buffer.getvalue()
