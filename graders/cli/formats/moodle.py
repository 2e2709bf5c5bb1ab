"""`--format moodle`: a CSV that Moodle's "Importar notas → Arquivo CSV" takes as it is: `,` between
cells, UTF-8 without BOM, `.` as the decimal point, one identity column to map ("Endereço de email" or
"Número de identificação"), one grade per exercise and a total on the `--nota-max` scale, and one
feedback column per exercise (and, when some student's code inspects the grader, a last column
with that note, for the instructor only). A student with neither e-mail nor matrícula cannot be imported and is
left out here (the CLI says so on stderr; every other format lists them)."""

from __future__ import annotations

import csv
import io

from ..report import clean

EMAIL, ID_NUMBER, NAME = "Endereço de email", "Número de identificação", "Nome completo"
INSPECTS = "Inspeciona o corretor (não é nota; não mapear)"


def importable(row: dict) -> bool:
    return bool(row["email"] or row["id_number"])


def _grade(value: float) -> str:
    return f"{value:.2f}"


def _feedback(result: dict) -> str:
    """Why points were lost, in the student's words: the failed criteria's titles, or the state."""
    if result["state"] == "não entregue":
        return "não entregou"
    if "error" in result:
        return "não avaliado: " + result["error"]
    missing = [c["title"] for c in result["criteria"] if c["state"] == "falhou"]
    only_export = [c["title"] for c in result["criteria"] if c["state"] == "só no arquivo exportado"]
    parts = []
    if missing:
        parts.append("falhou: " + "; ".join(missing))
    if only_export:
        parts.append("só no arquivo exportado (não entregue): " + "; ".join(only_export))
    return ". ".join(parts) or "todos os critérios cumpridos"


def _text(value: str) -> str:
    text = clean(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def render(report: dict) -> str:
    meta = report["report"]
    scale = meta["nota_max"]
    assignment = meta["assignment"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    top = f"{scale:g}"
    # The inspection note is for the instructor: its own column, left unmapped on import, and only
    # when some row has one (the importer's columns stay as they were otherwise).
    noted = any(row["inspection_note"] for row in report["students"] if importable(row))
    writer.writerow([EMAIL, ID_NUMBER, NAME, *(f"{ex} (0 a {top})" for ex in assignment), f"Total (0 a {top})",
                     *(f"Comentários {ex}" for ex in assignment), *([INSPECTS] if noted else [])])
    for row in report["students"]:
        if not importable(row):
            continue
        grades = []
        for ex in assignment:
            s = row["exercises"][ex]["score"]
            ungraded = row["exercises"][ex]["state"] in ("erro", "não avaliado")
            # An empty cell leaves Moodle's grade as it is: a run that was not graded is not a zero.
            grades.append("" if ungraded else _grade(scale * s["met"] / s["total"] if s["total"] else 0.0))
        total = row["score"]["grade"]
        writer.writerow([_text(row["email"] or ""), _text(row["id_number"] or ""), _text(row["student"] or ""),
                         *grades, "" if total is None else _grade(total),
                         *(_text(_feedback(row["exercises"][ex])) for ex in assignment),
                         *([_text(row["inspection_note"] or "")] if noted else [])])
    return buffer.getvalue()
