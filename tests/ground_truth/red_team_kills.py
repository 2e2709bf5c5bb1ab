"""What the red-team rounds' real-kill tests share: a case's program, and the verdict a resume would reach
on the states real SIGKILLs left (escrita-atomica and ponto-a, the two criteria a kill decides). The rules,
the same for every round:

- escrita-atomica fails when some real state holds a checkpoint that does not load (or none, after a
  complete one, unless the file is gone for good once a state with every tool's result was there: removed
  or archived after the task ended);
- ponto-a fails when, killed inside a tool, the file does not carry that call in pendingToolUse; killed
  inside the next model call, it does not hold the result with pendingToolUse null; when any real
  state's last message asks for a tool while the file carries neither that call nor its result; or when
  a real state lost a tool's result an earlier real state held (the resume would run it again)."""

from __future__ import annotations

import importlib
import json
import sys

from conftest import ROOT
from test_real_kills import JUDGED, compare

ADVERSARIAL = ROOT / "tests" / "adversarial"
ATTACKS = ADVERSARIAL / "attacks"
if str(ADVERSARIAL) not in sys.path:
    sys.path.append(str(ADVERSARIAL))  # advkit (the attacks' includes) and the rounds' labels


def _expand(name: str) -> str:
    import advkit  # tests/adversarial: the attacks' includes

    return advkit._expand((ATTACKS / f"{name}.py").read_text(encoding="utf-8"))


def _load(content):
    try:
        value = json.loads(content)
    except (TypeError, ValueError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None


def _call(block) -> dict:
    return {k: block[k] for k in ("id", "name", "input")}


def _has_result(state, tool_id) -> bool:
    for message in state.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result"
                                             and b.get("tool_use_id") == tool_id for b in content):
            return True
    return False


def _asked(state):
    """The tool_use block of the state's last message, when it is the assistant's."""
    messages = state.get("messages") or []
    last = messages[-1] if messages and isinstance(messages[-1], dict) else {}
    content = last.get("content") if last.get("role") == "assistant" else None
    if not isinstance(content, list):
        return None
    return next((b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"), None)


def real_verdict(got) -> dict[str, bool]:
    """escrita-atomica and ponto-a as a resume would find them on the states real kills left."""
    from graders.fake_agent import script

    uses = script()["tool_uses"]
    atomic = points = True
    for path in JUDGED:
        states = got.real[path]
        inside = [real for real, _r in got.tools[path]] + [real for real, _r in got.models[path]]
        if all(c is None for c in states + inside):
            continue  # never written: not judged
        complete = False
        # Removed or archived after the task ended (the statement allows it): the file gone for good once a
        # state holding every tool's result was there; a removal before the final model call fails ponto-a.
        loaded = [_load(c) for c in states]
        last = max((i for i, s in enumerate(loaded) if s is not None), default=-1)
        done_then_gone = (last >= 0 and all(c is None for c in states[last + 1:])
                          and all(_has_result(loaded[last], u["id"]) for u in uses))
        for i, content in enumerate(states):  # in the order the run went through them
            if content is None:
                atomic &= not complete or (done_then_gone and i > last)
            elif _load(content) is None:
                atomic = False
            else:
                complete = True
        atomic &= all(c is None or _load(c) is not None for c in inside)
        for k, (content, _replayed) in enumerate(got.tools[path]):
            saved = _load(content)
            points &= saved is not None and saved.get("pendingToolUse") == _call(uses[k])
        for k, (content, _replayed) in enumerate(got.models[path]):
            if 1 <= k <= len(uses):
                saved = _load(content)
                points &= (saved is not None and saved.get("pendingToolUse") is None
                           and _has_result(saved, uses[k - 1]["id"]))
        held = set()  # results a real state already held: a later one without them goes back
        for content in states:
            saved = _load(content)
            block = _asked(saved) if saved is not None else None
            if block is not None:
                points &= saved.get("pendingToolUse") == _call(block) or _has_result(saved, block["id"])
            if saved is not None:
                points &= all(_has_result(saved, tool_id) for tool_id in held)
                held |= {u["id"] for u in uses if _has_result(saved, u["id"])}
    return {"escrita-atomica": atomic, "ponto-a": points}


def check_case(name: str, labels: str, tmp_path) -> None:
    """Real kills of case `name` leave the replay's states, and the verdict a resume reaches on them is
    both the case's label (the FAILS of tests/adversarial/`labels`.py) and the grader's."""
    from graders.grading import grade
    from graders.submission import read

    submission = tmp_path / f"{name}.py"
    submission.write_text(_expand(name), encoding="utf-8")
    got = compare(submission, tmp_path / "kills")
    for path in JUDGED:
        assert got.real[path] == got.replayed[path], f"{path}: real kills and the replay differ"
        assert all(a == b for a, b in got.tools[path] + got.models[path]), f"{path}: inside a call, they differ"
    truth = real_verdict(got)
    # A bad case's label names what a kill breaks (FAILS); an ok case breaks nothing.
    broken = importlib.import_module(labels).FAILS.get(name, set()) & {"escrita-atomica", "ponto-a"}
    assert truth == {c: "_bad_" not in name or c not in broken for c in truth}, truth
    verdict = {c.id: c.passed for c in grade("nivel-2", read(str(submission), "nivel-2"), submission.name).criteria}
    assert {c: verdict[c] for c in truth} == truth, (verdict, truth)
