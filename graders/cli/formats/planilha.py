"""`--format planilha`: a CSV that a spreadsheet set to Portuguese (Brazil) opens right on a double
click: `;` between cells, UTF-8 with a BOM, Portuguese headers, decimal commas, the students' line
breaks kept inside quoted cells. The table comes first (one row per student, ready for a gradebook);
the class summary, the possible copies, the ignored files and the report's facts follow a blank row.
"""

from __future__ import annotations

import csv
import io
import re

from ..report import REVEALED, clean, revealed, rounded
from . import prose

# A cell a spreadsheet would compute: `=…`, `@…`, or a sign followed by something other than a word
# (`-2+3`, `+cmd|…`); these get an apostrophe. A name like `-kevin` only gets a leading space, which
# keeps it text without showing a stray apostrophe in the name.
_FORMULA = re.compile(r"^(?:[=@]|[+-](?![^\W\d_][\w .'-]*$))")


def cell(value) -> str:
    if isinstance(value, str):
        value = value.replace("\r\n", "\n").replace("\r", "\n")
    text = clean(value, keep_newlines=True)
    if _FORMULA.match(text):
        return "'" + text
    return " " + text if text[:1] in ("+", "-") else text


def identifier(value: str | None) -> str:
    """A matrícula as text: digits with a leading zero (or too many for a number) would become a number
    in a pt-BR spreadsheet (00000001 → 1); `="00000001"` is read as that very text (checked with
    LibreOffice's CSV import in tests/test_moodle_class.py). Only digits ever go inside the quotes."""
    text = cell(value or "")
    if text.isdigit() and text.isascii() and (text.startswith("0") and len(text) > 1 or len(text) > 15):
        return f'="{text}"'
    return text


def _state(c: dict) -> str:
    state = c["state"] if c["state"] in ("ok", "falhou") else "—"
    return state + (f" ({REVEALED})" if revealed(c) else "")


def render(report: dict) -> str:
    meta = report["report"]
    assignment = meta["assignment"]
    several = len(assignment) > 1
    header = ["Arquivo", "Aluno", "Tipo", "Situação"]
    for ex in assignment:
        prefix = f"{ex} — " if several else ""
        header += [prefix + t for t in meta["columns"][ex]["criteria"].values()]
        header += [prefix + "Pontos", prefix + "De"]
        header += [prefix + f"Resposta escrita: {w}" for w in meta["columns"][ex]["writings"]]
    nota = prose.decimal(meta["nota_max"]).removesuffix(",0")
    header += ["Pontos (total)", "De (total)", f"Nota (0 a {nota})", "E-mail", "Matrícula", "Turma", "Erro", "Inspeciona o corretor (não muda a nota)"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    writer.writerow([cell(h) for h in header])
    for row in report["students"]:
        line = [cell(", ".join(f["shown"] for f in row["files"])), cell(row["student"] or ""),
                prose.KIND_TEXT.get(row["kind"], ""), row["status"]]
        errors = prose.not_graded_lines(row) + ([row["error"]] if "error" in row else [])
        for ex in assignment:
            r = row["exercises"][ex]
            line += [_state(c) for c in r["criteria"]]
            line += [prose.decimal(r["score"]["met"]).removesuffix(",0"), prose.decimal(r["score"]["total"]).removesuffix(",0")]
            found = {w["id"]: w["text"] for w in r["writings"] if isinstance(w.get("text"), str)}
            line += [cell(found.get(w, "")) for w in meta["columns"][ex]["writings"]]
            if "error" in r and r["error"] not in row.get("error", ""):
                errors.append((f"{ex}: " if several else "") + r["error"])
        s = row["score"]
        line += [prose.decimal(s["met"]).removesuffix(",0"), prose.decimal(s["total"]).removesuffix(",0"),
                 rounded(s["exact"], 1, comma=True), cell(row["email"] or ""), identifier(row["id_number"]),
                 cell("; ".join(x for x in (row["roster"], row["identity_note"]) if x)), cell("; ".join(errors)),
                 cell(row["inspection_note"] or "")]
        writer.writerow(line)
    writer.writerow([])
    lines = (["Resumo da turma"] + prose.summary_lines(report["summary"]) + [""] + prose.copies_lines(report["possible_copies"])
             + [""] + prose.ignored_lines(report["ignored"]) + [""] + prose.header_lines(meta))
    for text in lines:
        writer.writerow([cell(text.strip())] if text else [])
    return "\ufeff" + buffer.getvalue()
