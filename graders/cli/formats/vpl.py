"""`--format vpl`: what Moodle's VPL reads from an evaluation (`vpl_evaluate.sh`): `Comment :=>>` lines
(a line starting with `-` is a title) and one last `Grade :=>>` line with a `.` decimal point, from
VPL_GRADEMIN to VPL_GRADEMAX (the variables VPL's vpl_environment.sh exports; --nota-max wins over
VPL_GRADEMAX). VPL collects code only, so the grade counts the code criteria (the reference solution
reaches the maximum). A student without a grade (`gradable: false`) gets the reason as a comment
and no Grade line (VPL then records no grade). VPL grades one student at a time: with several students there is no grade line."""

from __future__ import annotations

from fractions import Fraction

from ..report import clean, rounded


def _comment(text: str) -> str:
    # One line each: VPL reads a line at a time, and a student's text must not forge a Grade line.
    return "Comment :=>>" + clean(text).replace(":=>>", ": =>>")


def _number(value: float) -> Fraction:
    return Fraction(str(value))


def render(report: dict) -> str:
    meta = report["report"]
    students = report["students"]
    lines = []
    for row in students:
        lines.append(_comment(f"-{row['student'] or row['shown'] or '(sem nome)'}: {row['status']}, "
                              f"{row['score']['met']} de {row['score']['total']} critérios"))
        if row["identity_note"]:
            lines.append(_comment(row["identity_note"]))
        if not row["gradable"]:
            lines.append(_comment(f"Sem nota: {row['ungraded_reason']}"))
        for u in row["unread"]:
            lines.append(_comment(f"não corrigido: {u['path']} — {u['reason']}"))
        if row["inspection_note"]:
            lines.append(_comment(f"{row['inspection_note']} (não muda a nota)"))
        for ex, result in row["exercises"].items():
            s = result["score"]
            lines.append(_comment(f"-{ex}: {result['state']} ({s['met']} de {s['total']})"))
            if "error" in result:
                lines.append(_comment(result["error"]))
            for c in result["criteria"]:
                if c["state"] != "ok":
                    lines.append(_comment(f"{c['title']}: {c['state']}" + (f" — {c['message']}" if c["message"] else "")))
    low, high = _number(meta.get("grade_min", 0)), _number(meta["nota_max"])
    if len(students) == 1:
        row = students[0]
        if not row["gradable"] or row["score"]["exact"] is None:
            # No Grade line: VPL's proposedgrade() is then "" and set_grade() stores no grade (null),
            # never a number nobody earned; the comment above says why.
            lines.append(_comment("Sem nota nesta avaliação (nenhuma linha Grade)."))
        else:
            value = low + (high - low) * Fraction(row["score"]["exact"]) / high
            lines.append(f"Grade :=>>{rounded(f'{value.numerator}/{value.denominator}', 2)}")
    else:
        lines.append(_comment(f"{len(students)} alunos neste relatório: o VPL dá nota a um por vez (sem nota aqui)."))
    return "\n".join(lines) + "\n"
