"""The crash simulator itself: what reaches the disk when the 'process' dies at a given step."""

from __future__ import annotations

import io
import json
import os

import pytest

from graders.crashfs import CrashPlan, FileSystemTracer, SimulatedCrash
from graders.guard import BoundedOutput, Sandbox, compile_student, describe_exception


def run_traced(tmp_path, fn, plan=None):
    tracer = FileSystemTracer(str(tmp_path), plan)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with tracer:
            try:
                fn()
            except SimulatedCrash:
                pass
    finally:
        os.chdir(cwd)
    return tracer.trace


def write_twice(path="f.txt"):
    def fn():
        with open(path, "w") as f:
            f.write("a" * 10)
            f.flush()
            f.write("b" * 10)
    return fn


def test_ops_are_counted_in_order(tmp_path):
    trace = run_traced(tmp_path, write_twice())
    assert [op.kind for op in trace.ops] == ["open", "write", "write", "close"]
    assert (tmp_path / "f.txt").read_text() == "a" * 10 + "b" * 10


def test_crash_loses_what_python_still_buffers(tmp_path):
    # Dying before the close: the second write never left Python's buffer.
    trace = run_traced(tmp_path, write_twice(), CrashPlan(3))
    assert trace.crashed_at.kind == "write"
    assert (tmp_path / "f.txt").read_text() == "a" * 10


def test_torn_write_leaves_exactly_the_prefix(tmp_path):
    run_traced(tmp_path, write_twice(), CrashPlan(2, torn_at=4))
    assert (tmp_path / "f.txt").read_text() == "aaaa"


def test_nothing_reaches_disk_after_the_crash_even_if_caught(tmp_path):
    def stubborn():
        for _ in range(3):
            try:
                with open("g.txt", "w") as f:
                    f.write("x")
            except BaseException:
                pass
        with open("h.txt", "w") as f:
            f.write("y")
    run_traced(tmp_path, stubborn, CrashPlan(1))
    assert not (tmp_path / "g.txt").exists() and not (tmp_path / "h.txt").exists()


def test_simulated_crash_is_not_an_exception():
    assert not issubclass(SimulatedCrash, Exception)


def test_unreferenced_file_is_flushed_like_cpython(tmp_path):
    run_traced(tmp_path, lambda: open("u.txt", "w").write("tudo"))
    assert (tmp_path / "u.txt").read_text() == "tudo"


def test_writes_outside_the_traced_functions_are_reported(tmp_path):
    tracer = FileSystemTracer(str(tmp_path))
    with tracer:
        with io.FileIO(str(tmp_path / "raw.bin"), "w") as f:
            f.write(b"x")
    assert tracer.bypasses and "raw.bin" in tracer.bypasses[0]


def test_tampering_is_reported_and_undone():
    code = compile_student("import json\njson.loads = len\n", "t.py")
    box = Sandbox(code, "t.py", FileSystemTracer, BoundedOutput())
    try:
        outcome = box.load()
    finally:
        box.cleanup()
    assert outcome.kind == "tampered" and "json.loads" in outcome.message
    assert json.loads("[1]") == [1]


def test_output_is_capped():
    out = BoundedOutput(limit=10)
    out.write("x" * 100)
    assert out.getvalue().startswith("x" * 10) and "cortada" in out.getvalue()


def test_syntax_errors_name_their_line():
    from graders.guard import CodeError

    with pytest.raises(CodeError, match="linha 2"):
        compile_student("x = 1\ndef f(:\n", "s.py")


def test_exceptions_point_into_the_student_file():
    code = compile_student("def f():\n    return {}['x']\n", "s.py")
    namespace = {}
    exec(code, namespace)
    try:
        namespace["f"]()
    except KeyError as exc:
        assert describe_exception(exc, "s.py") == "KeyError: 'x' (linha 2, em f: `return {}['x']`)"


def test_line_buffered_text_reaches_the_os_at_each_newline(tmp_path):
    def fn():
        with open("l.txt", "w", buffering=1) as f:
            f.write("um\n")
            f.write("dois")
            f.write("\n")
    trace = run_traced(tmp_path, fn)
    assert [op.kind for op in trace.ops] == ["open", "write", "write", "close"]
