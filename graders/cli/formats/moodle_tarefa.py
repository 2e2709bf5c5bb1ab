"""`--format moodle-tarefa`: the assignment's grading worksheet (Moodle's "Baixar planilha de notas",
given as --turma) filled in: the same header, rows, order, columns, separator and encoding as it was
downloaded, with only the grade ("Nota"/"Grade") and feedback-comment cells of each row changed.

Rules of Moodle's offline importer this file keeps (mod/assign/feedback/offline/importgradeslib.php
next(), locallib.php process_import_grades()): the row's participant is the Identifier cell minus
the `hiddenuser` string of the language Moodle runs in ("Participante" in pt_br, "Participant " in
English), so the Identifier cells are left untouched and the worksheet must be uploaded in the
language it was downloaded in; a grade is read with unformat_float(), so it is written in the
worksheet's own decimal form; a row with an empty grade is skipped (nothing is erased), which is
what a student without a grade (`gradable: false`) gets, with the reason in the comment; a grade
above the "Nota máxima" is skipped without a word, so the scale is the worksheet's own."""

from __future__ import annotations

import csv
import io

from ..report import clean, rounded


def _feedback(row: dict) -> str:
    if not row["gradable"]:
        return "Sem nota até o professor olhar: " + row["ungraded_reason"]
    if not row["files"]:
        return "não entregou"
    parts = []
    for ex, result in row["exercises"].items():
        missing = [c["title"] for c in result["criteria"] if c["state"] == "falhou"]
        only = [c["title"] for c in result["criteria"] if c["state"] == "só no arquivo exportado"]
        if result["state"] == "não entregue":
            parts.append(f"{ex}: não entregue")
        elif missing or only:
            parts.append(f"{ex}: " + "; ".join([*(f"falhou: {m}" for m in missing),
                                                *(f"só no arquivo exportado: {o}" for o in only)]))
    notes = [row["identity_note"]] if row["identity_note"] else []
    notes += [f"não corrigido: {u['path']} — {u['reason']}" for u in row["unread"]]
    return clean(". ".join(parts + notes) or "todos os critérios cumpridos")


def render(report: dict) -> str:
    sheet = report["worksheet"]
    comma = sheet["comma"]
    by_row = {row["worksheet_row"]: row for row in report["students"] if row.get("worksheet_row") is not None}
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=sheet["delimiter"], lineterminator=sheet["newline"])
    writer.writerow(sheet["header"])
    for n, cells in enumerate(sheet["rows"]):
        cells = list(cells)
        row = by_row.get(n)
        if row is not None:
            width = max(sheet["grade_col"], sheet["feedback_col"] or 0) + 1
            cells += [""] * (width - len(cells))
            cells[sheet["grade_col"]] = rounded(row["score"]["exact"], 2, comma=comma) if row["gradable"] else ""
            if sheet["feedback_col"] is not None:
                cells[sheet["feedback_col"]] = _feedback(row)
        writer.writerow(cells)
    return ("\ufeff" if sheet["bom"] else "") + buffer.getvalue()
