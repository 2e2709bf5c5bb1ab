"""How the CLI spends its time around the sandboxes: a sandbox is held only while student code runs,
and the CLI's start does not load the supervisor's modules (they run inside the sandbox)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

from conftest import ROOT

from graders.cli import main
from graders.sandbox.turns import Turns
from graders.submission import from_python
from graders.trace.ops import Trace


class FakeSandbox:
    def __init__(self):
        self.runs = 0

    def run(self, source, filename, job, timeout, caps):
        self.runs += 1
        return Trace([], end="exit", output="", final={})


def test_the_sandbox_goes_back_to_the_pool_before_the_trace_is_judged(monkeypatch):
    """While one thread judges a trace, the sandbox already serves the next submission."""
    sandbox = FakeSandbox()
    pool = Turns([sandbox])
    seen = {}

    def grade(exercise, submission, filename, run, close_diagnosis=True):
        trace = run("x = 1", filename, {"function": "run_agent"})
        seen["free while judging"] = pool.free()  # the judge comes after the run, in this thread
        raise RuntimeError("judge stops here")  # a judge failure: that file is not graded, the batch goes on

    monkeypatch.setattr(main, "grade", grade)
    settings = main.Settings(timeout=5.0, caps={"events": 10, "data": 10, "output": 10})
    result = main.grade_job("a.py", "nivel-2", from_python("x = 1", "a"), settings, pool, threading.Event())
    assert seen["free while judging"] == 1 and sandbox.runs == 1
    assert pool.free() == 1 and pool.get(0) is sandbox  # and it is still there afterwards
    assert result["passed"] is False and result["criteria"] == [] and result["limit"] is True
    assert "Erro interno" in result["error"] and "não é uma nota" in result["error"]


def test_a_run_the_grader_broke_is_not_graded(monkeypatch):
    """The sandbox or the tap failed (end "broken"): no criterion was judged, so the file gets no grade
    (a "não avaliado" entry with the reason), never failed criteria that would count as a number."""

    class BrokenSandbox(FakeSandbox):
        def run(self, source, filename, job, timeout=10.0, caps=None):
            self.runs += 1
            return Trace([], end="broken", output="", final=None)

    pool = Turns([BrokenSandbox()])
    settings = main.Settings(timeout=5.0, caps={"events": 10, "data": 10, "output": 10})
    result = main.grade_job("a.py", "nivel-2", from_python("x = 1", "a"), settings, pool, threading.Event())
    assert result["criteria"] == [] and result["limit"] is True, result
    assert "problema do corretor" in result["error"] and "não é uma nota" in result["error"]


def test_no_run_starts_after_ctrl_c_for_a_thread_that_waited_for_a_sandbox(monkeypatch):
    sandbox = FakeSandbox()
    pool = Turns([sandbox])
    stop = threading.Event()

    def grade(exercise, submission, filename, run, close_diagnosis=True):
        stop.set()  # Ctrl+C arrives between the check at the start and the sandbox coming free
        return run("x = 1", filename, {"function": "run_agent"})

    monkeypatch.setattr(main, "grade", grade)
    settings = main.Settings(timeout=5.0, caps={"events": 10, "data": 10, "output": 10})
    assert main.grade_job("a.py", "nivel-2", from_python("x = 1", "a"), settings, pool, stop) is None
    assert sandbox.runs == 0 and pool.free() == 1


def test_each_graded_code_is_tokenised_for_the_copies_while_the_class_runs():
    """grade_job hands the code's shape (graders.similarity) to the copies section, so the end of the
    batch, when one core waits for the other, only compares."""
    from graders.similarity import shape, syntax_tree

    pool = Turns([FakeSandbox()])
    settings = main.Settings(timeout=5.0, caps={"events": 10, "data": 10, "output": 10})
    code = "def run_agent(model, tools):\n    return model\n"
    shapes: dict = {}
    result = main.grade_job("a.py", "nivel-2", from_python(code, "a"), settings, pool, threading.Event(), 0, shapes)
    assert result["criteria"] and "error" not in result
    assert shapes == {code: shape(syntax_tree(code))} and shapes[code]


def test_the_cli_does_not_import_the_supervisor():
    """graders.trace.kernel's supervisor modules (libseccomp, the runner's compilation) are the
    sandbox's; the CLI loads only the Landlock module of that package."""
    code = ("import sys, graders.cli.main; "
            "print(sorted(m for m in sys.modules if m.startswith('graders.trace.kernel.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    loaded = set(eval(out))
    assert loaded <= {"graders.trace.kernel.landlock", "graders.trace.kernel.linux"}, loaded
    # ...and the names it exports are still there on first use.
    import graders.trace.kernel as kernel

    assert callable(kernel.run_traced) and callable(kernel.serve) and callable(kernel._build_filter)


def test_a_free_sandbox_goes_to_the_earliest_file_waiting_whichever_thread_wakes_first():
    """Under load a later file's thread can wake first; the sandbox still goes to the earlier file, so
    an interrupted batch has graded the first files of the class, in order."""
    turns = Turns()
    served = []
    threads = []
    for order in (5, 1, 4, 0, 3, 2):  # the threads start waiting in a scrambled order
        def wait_turn(order=order):
            sandbox = turns.get(order)
            served.append(order)
            turns.put(sandbox)
        thread = threading.Thread(target=wait_turn)
        thread.start()
        threads.append(thread)
    deadline = time.monotonic() + 10
    while len(turns._waiting) < 6 and time.monotonic() < deadline:  # all six are waiting
        time.sleep(0.01)
    assert len(turns._waiting) == 6
    turns.put("sandbox")  # one sandbox comes free
    for thread in threads:
        thread.join(timeout=10)
    assert served == [0, 1, 2, 3, 4, 5]
    assert turns.free() == 1
