"""One whole report from the graded rows, in the format asked for: text, json, csv, planilha or html.
Every format names each student, scores them, and carries the class summary, the possible copies and
the report's own facts (when, isolation, grader version, interrupted or not) — csv excepted, whose
contract is one row per file (its score columns are there; the summary is in the other formats).
"""

from __future__ import annotations

import json

from . import html_report, report, spreadsheet
from .copies import copies_lines
from .metadata import header_lines
from .options import ALL_EXERCISES
from .summary import score, status, summary_lines, total_score


def _flat(rows: list[dict], exercise: str) -> list[dict]:
    """One exercise's results, one per row, with the row's student, short name, kind and score."""
    out = []
    for row in rows:
        result = row["results"].get(exercise) or report.normalise(
            {"file": row["file"], "exercise": exercise, "passed": False, "criteria": [],
             "error": row.get("error") or "não corrigido"})
        result["student"] = row["student"]
        result["shown"] = row["shown"]
        result["kind"] = row["kind"]
        result["score"] = score(result)
        out.append(result)
    return out


def _row_object(row: dict) -> dict:
    results = {}
    for ex, result in row["results"].items():
        result["score"] = score(result)
        results[ex] = result
    data = {"file": row["file"], "shown": row["shown"], "student": row["student"], "kind": row["kind"],
            "status": status(row), "passed": status(row) == "aprovado", "score": total_score(row),
            "exercises": results}
    if "error" in row:
        data["error"] = row["error"]
    return data


def _json(rows, exercise_ids, mode, meta, summary, copies) -> str:
    if mode == ALL_EXERCISES:
        submissions = [_row_object(row) for row in rows]
    else:
        submissions = [dict(r) for r in _flat(rows, exercise_ids[0])] if exercise_ids else []
    doc = {"report": meta, "summary": summary, "submissions": submissions, "possible_copies": copies}
    # One submission a line: still one JSON document, and the C encoder (an indented dump is pure Python).
    parts = [json.dumps(s, ensure_ascii=False, allow_nan=False) for s in submissions]
    head = {k: v for k, v in doc.items() if k != "submissions"}
    text = json.dumps(head, ensure_ascii=False, allow_nan=False, indent=1)
    return text[:-2] + ',\n "submissions": [\n' + ",\n".join(parts) + "\n ]\n}\n"


def _text(rows, exercise_ids, mode, meta, summary, copies) -> str:
    lines = []
    for row in rows:
        name = report.name_of(row)
        if mode != ALL_EXERCISES:
            lines += report.result_lines(_flat([row], exercise_ids[0])[0], name)
            continue
        total = total_score(row)
        if "error" in row:
            lines.append(f"{name}: ERRO DE ENTRADA — {row['error']}")
            continue
        points = f"; {total['met']} de {total['graded']} critérios no total" if total else ""
        lines.append(f"{name}: {status(row).upper()}{points}")
        for ex, result in row["results"].items():
            lines += report.result_lines(result, ex, indent="  ")
    # After the files, past a blank line (no file's block has one): the class, then the report's facts.
    lines += [""] + ["Resumo da turma:"] + summary_lines(summary) + [""] + copies_lines(copies) + [""] + header_lines(meta)
    return "\n".join(lines) + "\n"


def render(fmt: str, rows: list[dict], exercise_ids: list[str], mode: str, meta: dict, summary: dict,
           copies: list[dict]) -> str:
    """`mode`: the EXERCICIO argument (an exercise id, or `todos`)."""
    if fmt == "json":
        return _json(rows, exercise_ids, mode, meta, summary, copies)
    if fmt == "csv":
        if mode == ALL_EXERCISES:
            return report.render_csv_groups([_row_object(row) for row in rows], exercise_ids)
        return report.render_csv(_flat(rows, mode), mode)
    if fmt == "planilha":
        return spreadsheet.render(rows, exercise_ids, meta, summary, copies)
    if fmt == "html":
        return html_report.render_html(rows, exercise_ids, meta, summary, copies)
    return _text(rows, exercise_ids, mode, meta, summary, copies)
