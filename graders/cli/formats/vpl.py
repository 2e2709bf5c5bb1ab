"""`--format vpl`: what Moodle's VPL reads from an evaluation (`vpl_evaluate.sh`): `Comment :=>>` lines
(a line starting with `-` is a title) and one last `Grade :=>>` line, on the `--nota-max` scale with a
`.` decimal point. VPL grades one student at a time: with several students there is no grade line."""

from __future__ import annotations

from ..report import clean


def _comment(text: str) -> str:
    # One line each: VPL reads a line at a time, and a student's text must not forge a Grade line.
    return "Comment :=>>" + clean(text).replace(":=>>", ": =>>")


def render(report: dict) -> str:
    meta = report["report"]
    students = report["students"]
    lines = []
    for row in students:
        lines.append(_comment(f"-{row['student'] or row['shown'] or '(sem nome)'}: {row['status']}, "
                              f"{row['score']['met']} de {row['score']['total']} critérios"))
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
    if len(students) == 1 and students[0]["score"]["grade"] is None:
        lines.append(_comment("Sem nota: um arquivo não pôde ser corrigido (veja acima)."))
    elif len(students) == 1:
        lines.append(f"Grade :=>>{students[0]['score']['grade']:.2f}")
    else:
        lines.append(_comment(f"{len(students)} alunos neste relatório: o VPL dá nota a um por vez (sem nota aqui)."))
    return "\n".join(lines) + "\n"
