"""The report's shared Portuguese sentences (summary, copies, facts, ignored files), read from the
class report; used by the formats that print prose, so they all say the same thing."""

from __future__ import annotations

from ..report import plural, revealed, rounded

ISOLATION_TEXT = {
    "estrito": "bubblewrap (processo isolado, sem rede, sistema somente leitura)",
    "reduzido": "reduzido (sem bubblewrap; veja PROFESSORES.md, Isolamento)",
}
# Said wherever a format lists the students flagged by graders.cli.inspection.
INSPECTING = ("inspecionam o corretor (leem /proc ao rodar, ou o código olha o corretor por dentro; "
              "não muda a nota: confira lendo o código)")
KIND_TEXT = {"py": "código (.py)", "export": "respostas (.json)", "misto": "código e respostas", None: ""}


def decimal(value: float, places: int = 1) -> str:
    return f"{value:.{places}f}".replace(".", ",")


def header_lines(meta: dict) -> list[str]:
    """The report's facts as short lines. A new fact in graders.cli.metadata.describe is one line here."""
    lines = [
        f"Gerado em: {meta['generated_at']}",
        f"Isolamento usado: {meta.get('isolation_text') or ISOLATION_TEXT.get(meta['isolation'], meta['isolation'])}",
        f"Versão do corretor: {meta['grader_version']}",
        f"Nota: critérios cumpridos / critérios de {', '.join(meta['assignment']) or 'nenhum exercício'} "
        f"(pesos iguais, salvo indicação), de 0 a {decimal(meta['nota_max'])}",
        f"Regra: {meta['merge_rule']}",
    ]
    if meta.get("fences_text"):  # what the sandbox says it enforced (graders.sandbox)
        lines.append(f"Cercas em vigor: {meta['fences_text']}")
    if meta.get("interrupted"):
        left = len(meta.get("not_graded") or [])
        lines.append(f"INTERROMPIDO (Ctrl+C): {plural(left, 'arquivo ficou', 'arquivos ficaram')} sem correção; "
                     "este relatório traz só os já corrigidos")
    return lines


def _pct(ok: int, of: int) -> str:
    return f"{round(100 * ok / of)}%" if of else "—"


def summary_lines(summary: dict) -> list[str]:
    n = summary["students"]
    head = (f"{plural(n, 'aluno', 'alunos')} ({plural(summary['files'], 'arquivo lido', 'arquivos lidos')}): "
            f"{plural(summary['approved'], 'aprovado', 'aprovados')}, "
            f"{plural(summary['failed'], 'reprovado', 'reprovados')}, {summary['errors']} com erro")
    if summary["incomplete"]:
        head += f", {plural(summary['incomplete'], 'incompleto', 'incompletos')} (faltam exercícios)"
    if summary["not_graded"]:
        head += f", {plural(summary['not_graded'], 'não avaliado', 'não avaliados')} (sem nota: veja o motivo de cada um)"
    if summary["not_submitted"]:
        head += f", {summary['not_submitted']} não {'entregou' if summary['not_submitted'] == 1 else 'entregaram'}"
    lines = [head]
    if summary["unmatched"]:
        lines.append(f"  sem correspondência na turma (ou ambíguos): {summary['unmatched']}")
    if summary["ignored"]:
        lines.append(f"  arquivos ignorados: {summary['ignored']} (veja a lista)")
    if summary["inspecting"]:
        lines.append(f"  {INSPECTING}: {plural(summary['inspecting'], 'aluno', 'alunos')} (veja cada um)")
    py, export = summary["passed_by_kind"]["py"], summary["passed_by_kind"]["export"]
    if py["total"]:
        lines.append(f"  só código (.py, critérios de código): {py['passed']} de {py['total']} passaram em todos")
    if export["total"]:
        lines.append(f"  respostas exportadas (.json, todos os critérios): {export['passed']} de {export['total']} "
                     "passaram em todos")
    for ex, data in summary["exercises"].items():
        lines.append(f"  {ex}: {data['passed']} de {plural(data['graded'], 'corrigido', 'corrigidos')} "
                     f"{'passou' if data['passed'] == 1 else 'passaram'} em tudo")
        for cid, c in data["criteria"].items():
            if c["judged"]:
                lines.append(f"    {c['title']} [{cid}]: {c['passed']} de {c['judged']} ({_pct(c['passed'], c['judged'])})")
    return lines


def member_name(m: dict) -> str:
    return m["file"] + (f" ({m['student']})" if m.get("student") else "")


def copies_lines(copies: list[dict]) -> list[str]:
    if not copies:
        return ["Possíveis cópias: nenhuma (código idêntico ou quase idêntico entre arquivos diferentes)."]
    lines = ["Possíveis cópias (código idêntico ou quase idêntico; confira lendo o código):"]
    for c in copies:
        lines.append(f"  {c['exercise']}, {copy_kind(c)} ({round(100 * c['score'])}%): "
                     + ", ".join(member_name(m) for m in c["members"]) + identical_note(c))
    return lines


def copy_kind(c: dict) -> str:
    return c["kind"] + (" (publicada no site)" if "referência" in c["kind"] else "")


def identical_note(c: dict) -> str:
    same = c.get("same_as_reference") or []
    return ("".join(f"; idênticos entre si: {', '.join(s)}" for s in c.get("identical") or [])
            + (f"; igual à solução de referência: {', '.join(same)}" if same else ""))


def ignored_lines(ignored: list[dict]) -> list[str]:
    if not ignored:
        return ["Ignorados: nenhum arquivo."]
    return ["Ignorados (não corrigidos):"] + [f"  {i['path']}: {i['reason']}" for i in ignored]


def status_line(row: dict) -> str:
    """`REPROVADO (2 de 6 critérios; nota 3,3; 1 resposta revelada)` for one student."""
    score = row["score"]
    grade = "sem nota" if score["grade"] is None else f"nota {rounded(score['exact'], 1, comma=True)}"
    shown = sum(1 for result in row.get("exercises", {}).values() for c in result.get("criteria", []) if revealed(c))
    extra = f"; {plural(shown, 'resposta revelada', 'respostas reveladas')}" if shown else ""
    return f"{row['status'].upper()} ({score['met']} de {plural(score['total'], 'critério', 'critérios')}; {grade}{extra})"


def not_graded_lines(row: dict) -> list[str]:
    """Why the row has no grade, then each file of the student that was not graded (with its reason)."""
    lines = [f"SEM NOTA até você olhar — {row['ungraded_reason']}"] if row["ungraded_reason"] else []
    lines += [f"não corrigido: {u['path']} — {u['reason']}" for u in row["unread"]
              if u["path"] not in (row["ungraded_reason"] or "")]
    return lines


def who(row: dict) -> str:
    """The student as the reports name them: the file(s), with the student beside them when the
    file name does not already say it; the roster's name for one who sent nothing."""
    shown = ", ".join(f["shown"] for f in row["files"])
    if not row["files"]:
        return row["student"] or "(sem nome)"
    stem = row["files"][0]["shown"].replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if not row["student"] or (row["student"] == stem and len(row["files"]) == 1):
        return shown
    return f"{shown} (aluno: {row['student']})"
