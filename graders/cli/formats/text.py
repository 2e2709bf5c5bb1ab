"""`--format text` (the default): one block per student, then the class summary, the possible copies,
the ignored files and the report's facts, past a blank line."""

from __future__ import annotations

from ..report import REVEALED, clean, revealed
from . import prose

MARK = {"ok": "ok    ", "falhou": "falhou"}


def _exercise_lines(result: dict, indent: str) -> list[str]:
    if "error" in result:
        label = "NÃO AVALIADO" if result.get("limit") else "ERRO DE ENTRADA"
        return [f"{indent}  {label} — {result['error']}"]
    lines = []
    for c in result["criteria"]:
        mark = MARK.get(c["state"], "—     ")
        note = c["message"] or c.get("hint", "") if c["state"] in MARK else c["state"]
        lines.append(f"{indent}  [{mark}] {c['id']}" + (f" ({REVEALED})" if revealed(c) else "")
                     + (f": {note}" if note else ""))
    written = [w for w in result["writings"] if isinstance(w.get("text"), str) and w["text"].strip()]
    if written:
        lines.append(f"{indent}  Respostas escritas (não entram na nota):")
        pad = f"{indent}      "
        for w in written:
            # The student's own line breaks, kept and indented (never a literal "\n").
            text = clean(w["text"], keep_newlines=True).replace("\t", "    ").replace("\n", "\n" + pad)
            lines.append(f"{indent}    {w['id']}: {text}")
    return lines


def render(report: dict) -> str:
    lines = []
    assignment = report["report"]["assignment"]
    single = report["report"]["mode"] in assignment and len(assignment) == 1
    for row in report["students"]:
        note = f" [{row['roster']}]" if row["roster"] not in (None, "na turma") else ""
        note += f" [{row['identity_note']}]" if row["identity_note"] else ""
        lines.append(f"{prose.who(row)}: {prose.status_line(row)}{note}")
        # The matrícula and e-mail the student typed in the page (or the roster's): who to credit.
        ids = [f"matrícula {row['id_number']}" if row.get("id_number") else "",
               f"e-mail {row['email']}" if row.get("email") else ""]
        if any(ids):
            lines.append("  " + " · ".join(i for i in ids if i))
        lines += [f"  {line}" for line in prose.not_graded_lines(row)]
        if "error" in row:
            lines.append(f"  ERRO DE ENTRADA — {row['error']}")
        if row["inspection_note"]:
            lines.append(f"  {row['inspection_note']} (não muda a nota)")
        for ex, result in row["exercises"].items():
            if result["state"] == "não entregue" and (single or not row["files"]):
                continue
            if not single:
                score = result["score"]
                lines.append(f"  {ex}: {result['state']}"
                             + (f" ({score['met']} de {score['total']})" if result["state"] == "avaliado" else ""))
            if result["state"] != "não entregue":
                lines += _exercise_lines(result, "  " if not single else "")
    lines += ([""] + ["Resumo da turma:"] + prose.summary_lines(report["summary"]) + [""]
              + prose.copies_lines(report["possible_copies"]) + [""] + prose.ignored_lines(report["ignored"])
              + [""] + prose.header_lines(report["report"]))
    return "\n".join(lines) + "\n"
