"""Every simulated crash of a graded run, described for the timeline (the page's and the instructor's report).

Built from the judge's own observations (the same runs, the same checks): one code path.
Schema (also in the README):
  {"path": "checkpoint.json", "total_ops": N, "groups": ["A1", "ferramenta 1", ...],
   "points": [{"n", "op", "torn_at", "kind", "group", "where", "outcome": "ok"|"falhou",
               "criterion": null|"escrita-atomica"|"ponto-a", "message", "expected", "disk": i}],
   "disks": [{"exists", "bytes", "text", "json": pretty JSON or null, "cut": bool}]}
"""

from __future__ import annotations

import json

from . import protocol
from .controller import CrashPlan
from .nivel2 import describe_op, parse

SHOWN = 2000


def _state(content):
    """The checkpoint a resume would load, or None (absent or not a complete JSON)."""
    try:
        return parse(content)
    except ValueError:
        return None


def groups(judge) -> dict[int, str]:
    """The part of the loop each operation belongs to: A1 (after the model asked for tool 1, before
    it runs), ferramenta 1, B1 (after it ran, before the model is called again), A2…, fim."""
    labels: dict[int, str] = {}
    tools = 0
    for op in judge.ref.ops:
        if op.kind == "tool":
            tools += 1
            labels[op.index] = f"ferramenta {tools}"
        elif op.model_calls == 0:
            labels[op.index] = "início"
        elif op.model_calls >= len(judge.responses):
            labels[op.index] = "fim"
        elif tools < op.model_calls:
            labels[op.index] = f"A{op.model_calls}"
        else:
            labels[op.index] = f"B{tools}"
    return labels


def _disk(content) -> dict:
    if content is None:
        return {"exists": False, "bytes": 0, "text": "", "json": None, "cut": False}
    text = content.decode("utf-8", "replace")
    state = _state(content)
    pretty = json.dumps(state, ensure_ascii=False, indent=2) if state is not None else None
    return {
        "exists": True, "bytes": len(content), "text": text[:SHOWN],
        "json": pretty[:SHOWN] if pretty is not None else None,
        "cut": len(text) > SHOWN or (pretty is not None and len(pretty) > SHOWN),
    }


def _expected(judge, plan: CrashPlan, run) -> str:
    op = judge.ref.ops[plan.op_index - 1]
    if op.kind == "tool" and plan.torn_at is None:
        return ("O ponto A desta chamada: pendingToolUse = "
                f"{protocol.brief(judge.pending_expected(op), 140)}, num JSON completo.")
    if op.model_calls >= len(judge.responses):
        return "A tarefa já tinha terminado: o último checkpoint completo, ou nenhum (apagá-lo é permitido)."
    complete = [s for s in (_state(c) for c in judge.timeline[: plan.op_index]) if s is not None]
    if not complete:
        return ("Nada ainda (nenhum checkpoint completo tinha sido gravado): a retomada pode não achar arquivo "
                "nenhum, mas nunca um arquivo pela metade.")
    latest = complete[-1]
    if isinstance(latest, dict):
        summary = (f"turns = {protocol.brief(latest.get('turns'))}, "
                   f"pendingToolUse = {protocol.brief(latest.get('pendingToolUse'), 80)}")
    else:
        summary = protocol.brief(latest, 80)
    return f"Um checkpoint completo já gravado — o mais recente tinha {summary}."


def describe(judge) -> dict:
    labels = groups(judge)
    disks: list[dict] = []
    seen: dict[tuple, int] = {}
    points = []
    for n, plan in enumerate(judge.plans, start=1):
        run = judge.run(plan)
        op = judge.ref.ops[plan.op_index - 1]
        criterion, message = None, ""
        failure = judge.crash_failure(plan, run)
        if failure is not None:
            criterion, message = "escrita-atomica", failure[1].message
        elif op.kind == "tool" and plan.torn_at is None:
            missed = judge.point_a_failure(op, run)
            if missed is not None:
                criterion, message = "ponto-a", missed.message
        content = run.disk.get(judge.path) if judge.path in run.disk else None
        key = (judge.path in run.disk, content)
        if key not in seen:
            seen[key] = len(disks)
            disks.append(_disk(content if judge.path in run.disk else None))
        points.append({
            "n": n, "op": op.index, "torn_at": plan.torn_at, "kind": op.kind, "group": labels[op.index],
            "where": describe_op(op, plan.torn_at), "outcome": "falhou" if criterion else "ok",
            "criterion": criterion, "message": message, "expected": _expected(judge, plan, run), "disk": seen[key],
        })
    order = list(dict.fromkeys(p["group"] for p in points))
    return {"path": judge.shown, "total_ops": judge.total, "groups": order, "points": points, "disks": disks}
