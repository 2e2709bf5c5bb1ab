"""Every crash point of a graded run, described for the timeline (the page's and the instructor's
report): the judge's own points and outcomes, under a killed process and under a power loss.

Schema:
  {"path": "checkpoint.json", "total_ops": N, "groups": ["início", "A1", "ferramenta 1", ...],
   "power_loss": "advice"|"graded",
   "points": [{"n", "op", "torn_at", "kind", "group", "where", "outcome": "ok"|"falhou",
               "criterion": null|"escrita-atomica"|"ponto-a", "message", "expected", "expected_json": i|null, "disk": i,
               "power": {"outcome", "message", "disk": i} | null}],
   "disks": [{"exists", "bytes", "text", "json": pretty JSON or null, "cut": bool,
              "fails": where a resume would fail to load it (reading.load_failure), or ""}],
   "expectations": [indented JSON text]}   (each shown once, like the disks: a report stays small)
"""

from __future__ import annotations

import json

from . import protocol
from ..replay.states import MODEL, START, TOOL, TORN
from .reading import complete_key, load_failure, parse

SHOWN = 2000
# A run with thousands of crash states (a writer that writes byte by byte) keeps the report and the
# page small: every failing point up to a share of this, then the rest spread evenly; `total` keeps
# the real count, so "Queda n de N" still reads the same as in the messages.
MAX_POINTS = 240


def _pretty(value) -> str:
    """json.dumps(value, ensure_ascii=False, indent=2), but only as far as past SHOWN characters: only
    that much is ever shown, and a run's timeline encodes a growing checkpoint at every point."""
    out, size = [], 0
    for chunk in _ENCODER.iterencode(value):
        out.append(chunk)
        size += len(chunk)
        if size > SHOWN:
            break
    return "".join(out)


_ENCODER = json.JSONEncoder(ensure_ascii=False, indent=2)


def _disk(content) -> dict:
    if content is None:
        return {"exists": False, "bytes": 0, "text": "", "json": None, "cut": False, "fails": ""}
    text = content.decode("utf-8", "replace")
    try:
        state = parse(content)
        pretty = _pretty(state)
    except (ValueError, UnicodeDecodeError):
        pretty = None
    return {
        "exists": True, "bytes": len(content), "text": text[:SHOWN],
        "json": pretty[:SHOWN] if pretty is not None else None,
        "cut": len(text) > SHOWN or (pretty is not None and len(pretty) > SHOWN),
        "fails": load_failure(content) if pretty is None else "",
    }


def _expected(judge, point, latest) -> str:
    state = point.state
    if state.kind == TOOL:
        return ("O ponto A desta chamada: pendingToolUse = "
                f"{protocol.brief(judge.expected_pending((state.event.payload or {}).get('name')), 140)}, num JSON completo.")
    if state.kind == MODEL and 1 <= state.served < len(judge.responses):
        block = judge.tool_uses[state.served - 1]
        return f"O ponto B do turno anterior: o resultado de {block['name']} em messages e pendingToolUse = null."
    if state.finished:
        return "A tarefa já tinha terminado: o último checkpoint completo, ou nenhum (apagá-lo é permitido)."
    if latest is None:
        return ("Nada ainda (nenhum checkpoint completo tinha sido gravado): a retomada pode não achar arquivo "
                "nenhum, mas nunca um arquivo pela metade.")
    if isinstance(latest, dict):
        summary = (f"turns = {protocol.brief(latest.get('turns'))}, "
                   f"pendingToolUse = {protocol.brief(latest.get('pendingToolUse'), 80)}")
    else:
        summary = protocol.brief(latest, 80)
    return f"Um checkpoint completo já gravado — o mais recente tinha {summary}."


def _indent(text: str, pad: str) -> str:
    return text.replace("\n", "\n" + pad)


def _expected_json(judge, point, latest, pretty=_pretty) -> str | None:
    """What the protocol expects on disk at this point, in the form the disk is shown (indented JSON), so
    the two can be compared line by line: the whole checkpoint where it is known, else the fields the
    protocol checks, "…" standing for the rest; None where no file at all is what a resume should find."""
    state = point.state
    if state.kind == TOOL:
        pending = judge.expected_pending((state.event.payload or {}).get("name"))
        return "{\n  …,\n  \"pendingToolUse\": " + _indent(json.dumps(pending, ensure_ascii=False, indent=2), "  ") + "\n}"
    if state.kind == MODEL and 1 <= state.served < len(judge.responses):
        block = judge.tool_uses[state.served - 1]
        result = {"type": "tool_result", "tool_use_id": block["id"], "content": judge.tool_results[block["name"]]}
        message = json.dumps({"role": "user", "content": [result]}, ensure_ascii=False, indent=2)
        return ("{\n  …,\n  \"messages\": [\n    …,\n    " + _indent(message, "    ") +
                "\n  ],\n  \"pendingToolUse\": null\n}")[:SHOWN]
    if latest is None:
        return None
    return pretty(latest)[:SHOWN]


def describe(judge, power_graded: bool = False) -> dict | None:
    if not judge.points:
        return None
    disks: list[dict] = []
    seen: dict = {}

    def disk_index(content) -> int:
        key = content
        if key not in seen:
            seen[key] = len(disks)
            disks.append(_disk(content))
        return seen[key]

    expectations: list[str] = []
    seen_expected: dict = {}

    def expected_index(text):
        if text is None:
            return None
        if text not in seen_expected:
            seen_expected[text] = len(expectations)
            expectations.append(text)
        return seen_expected[text]

    points, latest, latest_content = [], None, None
    shown_latest: dict = {}

    def pretty(value) -> str:
        """The latest checkpoint, encoded once however many points it stays the latest for (the
        cache holds the object, so its id is never another's)."""
        hit = shown_latest.get(id(value))
        if hit is None or hit[0] is not value:
            hit = shown_latest[id(value)] = (value, _pretty(value))
        return hit[1]

    listed = _listed(judge)
    for point in judge.points:
        state = point.state
        # A complete file at a call boundary is what a resume may find from then on (this state included).
        if state.kind != TORN and state.content != latest_content and complete_key(state.content) is not None:
            latest, latest_content = parse(state.content), state.content
        if point.n not in listed:
            continue
        criterion, message = judge.outcomes.get(point.n, (None, ""))
        power = None
        if state.power:
            advice = judge.power_outcomes.get(point.n)
            shown = state.kept if state.kept != state.content else state.durable
            power = {"outcome": "falhou" if advice else "ok", "message": advice or "",
                     "disk": disk_index(shown if advice else state.content)}
        points.append({
            "n": point.n, "op": point.op, "torn_at": state.torn_at, "kind": _kind(state, judge),
            "group": point.group, "where": point.where, "outcome": "falhou" if criterion else "ok",
            "criterion": criterion, "message": message, "expected": _expected(judge, point, latest),
            "expected_json": expected_index(_expected_json(judge, point, latest, pretty)),
            "disk": disk_index(state.content), "power": power,
        })
    order = list(dict.fromkeys(p["group"] for p in points))
    return {"path": judge.shown, "total_ops": judge.total_ops, "total": judge.total, "groups": order,
            "power_loss": "graded" if power_graded else "advice", "points": points, "disks": disks,
            "expectations": expectations}


def _listed(judge) -> set[int]:
    """The numbers of the points the timeline lists (all of them, unless there are too many)."""
    numbers = [p.n for p in judge.points]
    if len(numbers) <= MAX_POINTS:
        return set(numbers)
    failing = [n for n in numbers if n in judge.outcomes or n in judge.power_outcomes][: MAX_POINTS // 2]
    keep = set(failing) | judge.cited | {numbers[0], numbers[-1]}
    keep |= {p.n for p in judge.points if p.state.kind in (TOOL, MODEL)}
    rest = [n for n in numbers if n not in keep]
    room = max(MAX_POINTS - len(keep), 0)
    if room and rest:
        step = len(rest) / room
        keep |= {rest[int(i * step)] for i in range(min(room, len(rest)))}
    return keep


def _kind(state, judge) -> str:
    if state.kind in (START, TOOL, MODEL):
        return {"start": "start", "tool": "tool", "model": "model"}[state.kind]
    return state.event.kind if state.event is not None else state.kind
