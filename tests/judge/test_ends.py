"""A run the trusted side stopped is explained alike by both levels' criteria and by Executar."""

from __future__ import annotations

import pytest

from graders import playground
from graders.judge import nivel1, nivel2
from graders.judge.ends import end_text
from graders.trace.ops import ENDS

from .tracebuilder import Builder

STOPPED = sorted(ENDS - {"exit"})
FAILED_CALL = {"kind": "exception", "phase": "call", "exc_type": "KeyError", "exc_text": "'x'"}


def stopped(end: str):
    return Builder().trace(end=end, code=9 if end == "signal" else 0, report=FAILED_CALL)


@pytest.mark.parametrize("end", STOPPED)
def test_every_way_a_run_is_stopped_has_words(end):
    assert end_text(stopped(end))


@pytest.mark.parametrize("end", STOPPED)
def test_executar_and_both_levels_say_the_same_thing(end):
    trace = stopped(end)
    words = end_text(trace)
    shown = playground.run("nivel-2", "def run_agent(*a):\n    pass\n", run_code=lambda *_: trace)["error"]
    assert shown.lower().startswith(words.lower()), shown
    assert words in nivel1.judge(trace).message
    messages = [c.message for c in nivel2.judge(trace)[0].values()]
    assert any(words in m for m in messages), messages


def test_a_run_that_exited_is_explained_by_its_own_failure_not_by_an_end():
    assert end_text(Builder().trace(end="exit", report=FAILED_CALL)) == ""
