"""The class at a glance, for every report format: each student's score (criteria met / criteria
graded, per exercise and in total) and the class summary (counts, `.py` and exports counted apart,
the pass rate of every criterion).

A *row* is one file: {"file", "shown", "student", "kind": "py"|"export"|None, "results": {exercise:
normalised result}} plus "error" when the file itself could not be read. A result with "error" was
not graded (unreadable, or stopped by a grader limit: "limit": true).
"""

from __future__ import annotations

from .. import exercises
from .report import plural


def titles(exercise: str) -> dict[str, str]:
    """{criterion id: its neutral title} ({} for an unknown exercise)."""
    try:
        return {c["id"]: c.get("title") or c["id"] for c in exercises.load(exercise)["criteria"]}
    except Exception:  # noqa: BLE001 - unknown exercise: the ids stand in
        return {}


def title(exercise: str, cid: str) -> str:
    return titles(exercise).get(cid, cid)


def graded(result: dict | None) -> bool:
    return isinstance(result, dict) and "error" not in result


def score(result: dict | None) -> dict | None:
    """{"met", "graded"} for one graded result, None for one that was not graded."""
    if not graded(result):
        return None
    criteria = result.get("criteria") or []
    return {"met": sum(1 for c in criteria if c.get("passed") is True), "graded": len(criteria)}


def total_score(row: dict) -> dict | None:
    """The row's score over every graded exercise, with its fraction (None if nothing was graded)."""
    scores = [s for s in (score(r) for r in row.get("results", {}).values()) if s]
    if not scores:
        return None
    met, of = sum(s["met"] for s in scores), sum(s["graded"] for s in scores)
    return {"met": met, "graded": of, "fraction": round(met / of, 4) if of else 0.0}


def status(row: dict) -> str:
    """"aprovado", "reprovado", "erro" (unreadable) or "não avaliado" (a grader limit stopped a run)."""
    results = list(row.get("results", {}).values())
    if "error" in row or not results:
        return "erro"
    if any(r.get("limit") for r in results):
        return "não avaliado"
    if any("error" in r for r in results):
        return "erro"
    return "aprovado" if all(r.get("passed") for r in results) else "reprovado"


def summarise(rows: list[dict], exercise_ids: list[str]) -> dict:
    """The class summary (the "summary" object of the JSON report).

    "passed" counts `.py` files (graded on the code criteria only) and exports (every criterion)
    apart: passing 4 code criteria is not passing all 6."""
    counts = {"aprovado": 0, "reprovado": 0, "erro": 0, "não avaliado": 0}
    by_kind = {"py": {"total": 0, "passed": 0}, "export": {"total": 0, "passed": 0}}
    for row in rows:
        state = status(row)
        counts[state] += 1
        kind = row.get("kind")
        if kind in by_kind and state in ("aprovado", "reprovado"):
            by_kind[kind]["total"] += 1
            by_kind[kind]["passed"] += state == "aprovado"
    per_exercise = {}
    for ex in exercise_ids:
        names = titles(ex)
        results = [row["results"][ex] for row in rows if graded(row.get("results", {}).get(ex))]
        criteria = {}
        for cid in names or {c["id"]: c["id"] for r in results for c in r["criteria"]}:
            judged = [c for r in results for c in r["criteria"] if c["id"] == cid]
            ok = sum(1 for c in judged if c["passed"])
            criteria[cid] = {"title": names.get(cid, cid), "passed": ok, "judged": len(judged),
                             "rate": round(ok / len(judged), 4) if judged else None}
        per_exercise[ex] = {"graded": len(results), "passed": sum(1 for r in results if r.get("passed")),
                            "criteria": criteria}
    return {"files": len(rows), "approved": counts["aprovado"], "failed": counts["reprovado"],
            "errors": counts["erro"], "not_graded": counts["não avaliado"], "passed_by_kind": by_kind,
            "exercises": per_exercise}


def _pct(ok: int, of: int) -> str:
    return f"{round(100 * ok / of)}%" if of else "—"


def summary_lines(summary: dict) -> list[str]:
    """The summary as Portuguese lines (text report, spreadsheet)."""
    n = summary["files"]
    head = (f"{plural(n, 'arquivo', 'arquivos')}: {plural(summary['approved'], 'aprovado', 'aprovados')}, "
            f"{plural(summary['failed'], 'reprovado', 'reprovados')}, {summary['errors']} com erro")
    if summary["not_graded"]:
        head += f", {plural(summary['not_graded'], 'não avaliado', 'não avaliados')} (limite do corretor)"
    lines = [head]
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
