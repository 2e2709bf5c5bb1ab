"""The page's "Executar" (graders.playground) on hand-built traces: what it tells the student."""

from __future__ import annotations

import pytest

from graders import playground

from .tracebuilder import Builder, run_agent

SOURCE = "def run_agent(task, tools, call_model, execute_tool):\n    pass\n"


def executar(trace, exercise="nivel-2"):
    return playground.run(exercise, SOURCE, run_code=lambda *_: trace)


@pytest.mark.parametrize("code, says", [(0, "O processo terminou antes de run_agent retornar"),
                                        (3, "O processo terminou com o código 3 antes de run_agent retornar")])
def test_code_that_ends_the_process_itself_is_named_even_with_status_0(code, says):
    shown = executar(Builder().trace(code=code, report={}))
    assert shown["ok"] is False
    assert shown["error"].startswith(says) and "os._exit" in shown["error"], shown["error"]


def test_a_run_that_returned_shows_no_error():
    b = run_agent()
    shown = executar(b.trace(report={"kind": "ok", "phase": "call", "value": {"turns": 3, "tokensUsed": 10}}))
    assert shown["ok"] is True and shown["error"] == ""
    assert "devolveu o estado (turns=3" in shown["summary"]
