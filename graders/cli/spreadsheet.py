"""`--format planilha`: a CSV that a spreadsheet set to Portuguese (Brazil) opens right on a double
click: `;` between cells, UTF-8 with a BOM, Portuguese headers, decimal commas, the students' line
breaks kept inside quoted cells. The table comes first (one row per file, ready for a gradebook);
the class summary, the possible copies and the report's facts follow after a blank row.
"""

from __future__ import annotations

import csv
import io

from .. import exercises
from .copies import copies_lines
from .metadata import header_lines
from .report import REVEALED, clean, revealed
from .summary import status, summary_lines, titles, total_score

KIND = {"py": "código (.py)", "export": "respostas (.json)", None: ""}


def cell(value) -> str:
    """A cleaned cell, its line breaks kept, that a spreadsheet will not run as a formula."""
    if isinstance(value, str):
        value = value.replace("\r\n", "\n").replace("\r", "\n")
    text = clean(value, keep_newlines=True)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def decimal(value: float) -> str:
    return f"{value:.1f}".replace(".", ",")


def _writing_ids(exercise: str) -> list[str]:
    try:
        return [w["id"] for w in exercises.writings(exercise)]
    except Exception:  # noqa: BLE001 - unknown exercise: no written-answer columns
        return []


def _state(result: dict | None, cid: str) -> str:
    if not result or "error" in result:
        return ""
    c = next((c for c in result["criteria"] if c["id"] == cid), None)
    if c is None:
        return ""
    return ("ok" if c["passed"] else "falhou") + (f" ({REVEALED})" if revealed(c) else "")


def _written(result: dict | None) -> dict:
    found = {}
    for w in (result or {}).get("writings") or []:
        if isinstance(w, dict) and isinstance(w.get("id"), str) and isinstance(w.get("text"), str):
            found[w["id"]] = w["text"]
    return found


def render(rows: list[dict], exercise_ids: list[str], meta: dict, summary: dict, copies: list[dict]) -> str:
    several = len(exercise_ids) > 1
    header = ["Arquivo", "Aluno", "Tipo", "Situação"]
    groups = []
    for ex in exercise_ids:
        prefix = f"{ex} — " if several else ""
        names = titles(ex)
        writings = _writing_ids(ex)
        groups.append((ex, list(names), writings))
        header += [prefix + names[cid] for cid in names]
        header += [prefix + "Pontos", prefix + "De"]
        header += [prefix + f"Resposta escrita: {w}" for w in writings]
    header += ["Pontos (total)", "De (total)", "Nota (0 a 10)", "Erro"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    writer.writerow([cell(h) for h in header])
    for row in rows:
        line = [cell(row["shown"]), cell(row.get("student") or ""), KIND.get(row.get("kind"), ""), status(row)]
        errors = [row["error"]] if "error" in row else []
        for ex, ids, writings in groups:
            result = row["results"].get(ex)
            line += [_state(result, cid) for cid in ids]
            graded = result is not None and "error" not in result
            line += [sum(c["passed"] for c in result["criteria"]) if graded else "",
                     len(result["criteria"]) if graded else ""]
            written = _written(result)
            line += [cell(written.get(w, "")) for w in writings]
            if result is not None and "error" in result:
                errors.append((f"{ex}: " if several else "") + result["error"])
        total = total_score(row)
        line += [total["met"], total["graded"], decimal(10 * total["fraction"])] if total else ["", "", ""]
        line.append(cell("; ".join(errors)))
        writer.writerow(line)
    writer.writerow([])
    for text in ["Resumo da turma"] + summary_lines(summary) + [""] + copies_lines(copies) + [""] + header_lines(meta):
        writer.writerow([cell(text.strip())] if text else [])
    return "\ufeff" + buffer.getvalue()
