"""The parts of the judge, each on its own: the controller, the shadow disk, the safe disk reader,
the executor's hooks, and the choice of the live checkpoint."""

from __future__ import annotations

import os
import threading

import pytest

from graders.controller import KILL, MAX_OPS, CrashPlan, Op, RunController, RunLog
from graders.disk import read_tree
from graders.guard import BoundedOutput, compile_student
from graders.nivel2 import live_path
from graders.runs import LocalRunner, fresh_root
from graders.executor import run_in_process
from graders.shadow import history, replay, unexplained


def op(index, kind, path, **extra):
    return Op(index, kind, path, **extra)


# --- controller -----------------------------------------------------------------------------


def test_controller_kills_at_the_plan_and_tears_writes():
    ctl = RunController(CrashPlan(2))
    assert ctl.handle({"t": "op", "kind": "open", "path": "a", "trunc": True, "create": True}) == {"a": "go"}
    assert ctl.handle({"t": "op", "kind": "write", "path": "a", "offset": 0, "data": "xyz"}) is KILL
    assert ctl.log.stopped == "crash"
    torn = RunController(CrashPlan(1, 2))
    assert torn.handle({"t": "op", "kind": "write", "path": "a", "offset": 0, "data": "xyz"}) == {"a": "tear", "n": 2}
    assert torn.handle({"t": "op", "kind": "torn", "path": "a"}) is KILL and torn.log.torn


@pytest.mark.parametrize("message", [
    "texto", {"t": "op", "kind": "formatar-disco", "path": "a"}, {"t": "op", "kind": "write", "path": "a", "data": 3},
    {"t": "op", "kind": "write", "path": "a", "offset": -1, "data": ""}, {"t": "op", "kind": "open", "path": "x" * 10_000},
    {"t": "op", "kind": "write", "path": "a", "offset": 0, "data": "\u0100"}, {"t": "desconhecido"},
])
def test_controller_refuses_garbled_reports(message):
    ctl = RunController()
    assert ctl.handle(message) is KILL
    assert ctl.log.stopped == "protocol"


def test_controller_stops_a_runaway():
    ctl = RunController()
    for _ in range(MAX_OPS):
        assert ctl.handle({"t": "op", "kind": "fsync", "path": "a"}) == {"a": "go"}
    assert ctl.handle({"t": "op", "kind": "fsync", "path": "a"}) is KILL
    assert ctl.log.stopped == "runaway"


def test_controller_serves_the_script_and_records_tools():
    ctl = RunController()
    first = ctl.handle({"t": "model", "messages": [{"role": "user", "content": "x"}], "tools": []})
    assert first["response"]["stop_reason"] == "tool_use"
    answer = ctl.handle({"t": "op", "kind": "tool", "path": "buscar_tickets", "input": {"trimestre": "2026-T3"}})
    assert "412 tickets" in answer["result"]
    assert ctl.log.tool_calls == [("buscar_tickets", {"trimestre": "2026-T3"})]
    assert ctl.log.ops[-1].model_calls == 1


# --- shadow disk ------------------------------------------------------------------------------


def test_shadow_replays_writes_renames_and_truncation():
    ops = [
        op(1, "open", "t/c.json.tmp", trunc=True, create=True),
        op(2, "write", "t/c.json.tmp", data=b"hello world", offset=0),
        op(3, "write", "t/c.json.tmp", data=b"W", offset=6),
        op(4, "replace", "t/c.json.tmp", target="t/c.json"),
        op(5, "truncate", "t/c.json", length=5),
    ]
    assert replay(ops).files == {"t/c.json": bytearray(b"hello")}
    assert replay(ops[:2], torn_at=4).get("t/c.json.tmp") == b"hell"
    assert history(ops, "t/c.json") == [None, None, None, None, b"hello World", b"hello"]
    failed = op(6, "remove", "t/c.json", failed=True)
    assert replay(ops + [failed]).get("t/c.json") == b"hello"


def test_shadow_names_a_change_no_step_explains():
    ops = [op(1, "open", "t/checkpoint.json", trunc=True, create=True), op(2, "write", "t/checkpoint.json", data=b"{}", offset=0)]
    is_checkpoint = lambda p: p.endswith("checkpoint.json")  # noqa: E731
    assert unexplained(ops, None, {"t/checkpoint.json": b"{}"}, is_checkpoint) == []
    assert unexplained(ops, None, {"t/checkpoint.json": b"{]"}, is_checkpoint) == ["t/checkpoint.json"]
    assert unexplained(ops, None, {}, is_checkpoint) == ["t/checkpoint.json"]
    assert unexplained(ops, None, {"t/checkpoint.json": b"{}", "t/x/checkpoint.json": None}, is_checkpoint) == ["t/x/checkpoint.json"]


# --- reading the disk --------------------------------------------------------------------------


def test_read_tree_never_follows_links_nor_opens_fifos(tmp_path):
    secret = tmp_path / "segredo.txt"
    secret.write_text("não leia")
    root = tmp_path / "raiz"
    (root / "trabalho").mkdir(parents=True)
    (root / "trabalho" / "checkpoint.json").symlink_to(secret)
    os.mkfifo(root / "trabalho" / "cano")
    (root / "trabalho" / "ok.json").write_bytes(b"{}")
    result = {}
    reader = threading.Thread(target=lambda: result.update(read_tree(str(root))))
    reader.start()
    reader.join(10)
    assert not reader.is_alive(), "a FIFO made the reader hang"
    assert result == {"trabalho/checkpoint.json": None, "trabalho/cano": None, "trabalho/ok.json": b"{}"}


# --- the executor's hooks, in-process ------------------------------------------------------------


def run_job(tmp_path, source, plan=None):
    root = fresh_root(str(tmp_path), "raiz")
    ctl = RunController(plan)
    end = run_in_process(compile_student(source, "s.py"), "s.py", root,
                         {"function": "save_checkpoint", "states": [{}], "missing": "sem save_checkpoint"}, lambda m: dict(ctl.handle(m)), BoundedOutput())
    ctl.log.end = end
    ctl.log.disk = read_tree(root)
    return ctl.log


def test_python_buffers_decide_when_bytes_reach_the_os(tmp_path):
    log = run_job(tmp_path, "def save_checkpoint(state):\n    f = open('a.txt', 'w')\n    f.write('x' * 10)\n    f.write('y' * 10)\n    f.close()\n")
    assert [o.kind for o in log.ops] == ["open", "write", "close"]
    assert log.ops[1].data == b"x" * 10 + b"y" * 10
    assert log.disk["trabalho/a.txt"] == b"x" * 10 + b"y" * 10


def test_a_crash_loses_what_was_still_buffered(tmp_path):
    source = ("def save_checkpoint(state):\n    f = open('a.txt', 'w')\n    f.write('x' * 10)\n    f.flush()\n"
              "    f.write('y' * 10)\n    import os\n    os.fsync(f.fileno())\n")
    log = run_job(tmp_path, source, CrashPlan(3))
    assert [o.kind for o in log.ops] == ["open", "write", "fsync"]
    assert log.disk["trabalho/a.txt"] == b"x" * 10


@pytest.mark.parametrize("body, says", [
    ("import sys\n    sys.exit(3)", "sys.exit(3)"),
    ("import os\n    os._exit(0)", "os._exit(0)"),
    ("import os, signal\n    os.kill(os.getpid(), signal.SIGKILL)", "os.kill()"),
    ("return {}['x']", "KeyError"),
])
def test_endings_of_student_code_are_reports_not_crashes(tmp_path, body, says):
    log = run_job(tmp_path, f"def save_checkpoint(state):\n    {body}\n")
    assert log.end["kind"] in ("exit", "exception") and says in log.end["message"]
    assert os.getcwd() != str(tmp_path / "raiz" / "trabalho")


def test_in_process_runs_put_back_what_student_code_rebinds(tmp_path):
    import json

    loads = json.loads
    run_job(tmp_path, "import json\ndef save_checkpoint(state):\n    json.loads = len\n    import sys\n    sys.settrace(lambda *a: None)\n")
    assert json.loads is loads
    assert __import__("sys").gettrace() is None


def test_a_second_interrupt_during_the_put_back_is_dropped(tmp_path, monkeypatch):
    """The page's Parar may ask twice: the second SIGINT lands while the grader puts things back.
    The run still ends with the first KeyboardInterrupt, nothing is left half restored, and SIGINT
    raises KeyboardInterrupt again afterwards."""
    import builtins
    import json
    import signal

    from graders import guard

    real_open, real_loads, real_restore = builtins.open, json.loads, guard.restore

    def restore_under_fire(baseline):
        signal.raise_signal(signal.SIGINT)  # delivered (or dropped) right here, mid put-back
        real_restore(baseline)

    monkeypatch.setattr(guard, "restore", restore_under_fire)
    source = "import json\ndef save_checkpoint(state):\n    json.loads = len\n    raise KeyboardInterrupt\n"
    with pytest.raises(KeyboardInterrupt):
        run_job(tmp_path, source)
    assert builtins.open is real_open and json.loads is real_loads
    assert "solucao" not in __import__("sys").modules
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)


def test_a_runner_makes_every_run_fresh(tmp_path):
    source = "import os\ndef save_checkpoint(state):\n    assert not os.listdir('.')\n    open('marca', 'w').close()\n"
    runner = LocalRunner(source, "s.py", {"function": "save_checkpoint", "states": [{}], "missing": "-"})
    try:
        assert all(runner.run(None).end["kind"] == "ok" for _ in range(3))
    finally:
        runner.close()


# --- the live checkpoint ----------------------------------------------------------------------------


def test_the_live_checkpoint_is_the_one_rewritten_at_every_moment_not_a_history_copy():
    ops, index, calls = [], 0, 0
    for moment in range(4):
        for kind, path, extra in (
            ("open", "trabalho/c/checkpoint.json.tmp", {"trunc": True, "create": True}),
            ("replace", "trabalho/c/checkpoint.json.tmp", {"target": "trabalho/c/checkpoint.json"}),
            ("open", f"trabalho/c/antigos/{moment}/checkpoint.json", {"trunc": True, "create": True}),
        ):
            index += 1
            ops.append(Op(index, kind, path, model_calls=moment, **extra))
        for _ in range(50):  # a chatty history copy: many writes, one moment
            index += 1
            ops.append(Op(index, "write", f"trabalho/c/antigos/{moment}/checkpoint.json", data=b"x", model_calls=moment))
    assert live_path(RunLog(None, ops=ops)) == "trabalho/c/checkpoint.json"


def test_an_output_flood_is_stopped_and_named_as_such(tmp_path):
    log = run_job(tmp_path, "def save_checkpoint(state):\n    while True:\n        print('x' * 1000)\n")
    assert log.end["kind"] == "flood" and "saída demais" in log.end["message"]
    assert len(log.end["output"]) < 25_000  # what was kept is capped


def test_printing_a_lot_is_not_a_flood(tmp_path):
    log = run_job(tmp_path, "def save_checkpoint(state):\n    for _ in range(400):\n        print('x' * 1000)\n")
    assert log.end["kind"] == "ok" and log.end["output"].endswith("[saída cortada]")
