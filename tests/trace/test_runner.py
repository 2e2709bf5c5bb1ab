"""The runner's own report (untrusted, for messages only), called in-process as the browser does."""

from graders.trace.runner import call_job

JOB = {"function": "save_checkpoint", "states": [{"n": 1}, {"n": 2}]}


def call(source, job=JOB):
    seen = []
    report = call_job(source, "aluno.py", job, None, None, lambda: seen.append("returned"))
    return report, seen


def test_ok_calls_returned_after_each_state():
    report, seen = call("def save_checkpoint(state):\n    pass\n")
    assert report == {"kind": "ok", "phase": "call"} and seen == ["returned", "returned"]


def test_exception_frames_point_into_the_students_file():
    report, _ = call("def helper():\n    raise KeyError('x')\n\ndef save_checkpoint(state):\n    helper()\n")
    assert report["kind"] == "exception" and report["exc_type"] == "KeyError" and report["lineno"] == 2
    assert report["frames"] == [[5, "save_checkpoint", "helper()"], [2, "helper", "raise KeyError('x')"]]


def test_syntax_error_missing_function_and_exit():
    report, _ = call("def save_checkpoint(state)\n    pass\n")
    assert report["kind"] == "exception" and report["phase"] == "load" and report["syntax"]["lineno"] == 1
    report, _ = call("x = 1\n")
    assert report["kind"] == "missing" and report["phase"] == "call"
    report, _ = call("import sys\ndef save_checkpoint(state):\n    sys.exit(3)\n")
    assert report["kind"] == "exit" and report["exc_text"] == "3"


def test_module_is_solucao_not_main():
    report, _ = call("assert __name__ == 'solucao', __name__\ndef save_checkpoint(state):\n    pass\n")
    assert report["kind"] == "ok"
