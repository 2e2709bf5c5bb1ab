"""`--format moodle`: a CSV that Moodle's "Importar notas → Arquivo CSV" takes as it is: `,` between
cells, UTF-8 without BOM, `.` as the decimal point, one identity column to map ("Endereço de email" or
"Número de identificação"), one grade per exercise and a total on the `--nota-max` scale, and one
feedback column per exercise (and, when some student's code inspects the grader, or a file's typed
name disagrees with the Moodle submission it came from, a last column with that note, for the
instructor only: left unmapped on import).

Rules of Moodle's importer (grade/import/csv/classes/load_data.php) this file keeps: a row whose
identity cell is blank is credited to the student of the row above (`$this->studentid` is set once
before the loop), and one unknown identity cancels the whole import (`usermappingerror`); so every
row is a roster student with its e-mail or ID number (without --turma, the export's own), and a file
that matched nobody is never a row (the CLI lists it on stderr with why). An empty grade cell erases
the grade already in Moodle (`update_grade_item` turns '' into null): a student without a grade
(`gradable: false`) gets no row at all, so nothing is erased and no zero is given."""

from __future__ import annotations

import csv
import io

from ..report import clean, rounded

EMAIL, ID_NUMBER, NAME = "Endereço de email", "Número de identificação", "Nome completo"
INSPECTS = "Inspeciona o corretor (não é nota; não mapear)"
CONFLICT = "Entrega e arquivo divergem (não é nota; não mapear)"


def importable(row: dict) -> bool:
    """A row Moodle maps to one roster student and that has a grade to give."""
    return bool(row["email"] or row["id_number"]) and row["gradable"] and row["roster"] in (None, "na turma")


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
    # Likewise a file whose typed name disagrees with the Moodle submission it came from.
    conflicts = any(row.get("identity_note") for row in report["students"] if importable(row))
    writer.writerow([EMAIL, ID_NUMBER, NAME, *(f"{ex} (0 a {top})" for ex in assignment), f"Total (0 a {top})",
                     *(f"Comentários {ex}" for ex in assignment), *([INSPECTS] if noted else []),
                     *([CONFLICT] if conflicts else [])])
    for row in report["students"]:
        if not importable(row):
            continue
        grades = [rounded(row["exercises"][ex]["score"]["exact"], 2, scale) for ex in assignment]
        writer.writerow([_text(row["email"] or ""), _text(row["id_number"] or ""), _text(row["student"] or ""),
                         *grades, rounded(row["score"]["exact"], 2),
                         *(_text(_feedback(row["exercises"][ex])) for ex in assignment),
                         *([_text(row["inspection_note"] or "")] if noted else []),
                         *([_text(row.get("identity_note") or "")] if conflicts else [])])
    return buffer.getvalue()
