"""Runners: how the judge gets the observations of one run (reference or crash), here in-process.

`local_runner` runs the executor in this very interpreter (the browser, and tests); the CLI's
runner (graders.sandbox) runs each one in a fresh sandboxed process. Both return a `RunLog`.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from .controller import CrashPlan, RunController, RunLog
from .disk import read_tree
from .executor import SYSTEM_TMP, WORKDIR, from_json, run_in_process, to_json
from .guard import BoundedOutput, CodeError, compile_student, snapshot
from .verdict import CriterionResult


def code_failure(source: str, filename: str, ids) -> dict[str, CriterionResult] | None:
    """Every criterion failed with the syntax error, or None when the code compiles."""
    try:
        compile_student(source, filename)
    except CodeError as exc:
        return {c: CriterionResult(c, False, str(exc)) for c in ids}
    return None


def fresh_root(base: str, name: str) -> str:
    root = os.path.join(base, name)
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, WORKDIR))
    os.mkdir(os.path.join(root, SYSTEM_TMP))
    return root


def _copy(value):
    """What crosses between executor and controller is JSON, in-process too: nothing is shared."""
    return from_json(to_json(value))


def _answer(answer: dict) -> dict:
    """The controller's answers share its script: the student's code gets a JSON copy, as over a socket."""
    return from_json(to_json(answer))


class LocalRunner:
    def __init__(self, source: str, filename: str, job: dict):
        self.code = compile_student(source, filename)
        self.filename = filename
        self.job = job
        self.output = ""
        self.base = tempfile.mkdtemp(prefix="correcao-")
        self.count = 0
        self.baseline = snapshot()

    def run(self, plan: CrashPlan | None) -> RunLog:
        self.count += 1
        root = fresh_root(self.base, f"execucao-{self.count}")
        controller = RunController(plan, read_disk=lambda: read_tree(root))

        def send(message):
            # The executor builds its reports from JSON copies of what the student handed over.
            return _answer(controller.handle(message))

        try:
            output = BoundedOutput() if plan is None else BoundedOutput(0)
            end = run_in_process(self.code, self.filename, root, _copy(self.job), send, output, self.baseline)
            if controller.log.stopped != "crash":
                controller.handle(_copy(end))
            controller.log.disk = read_tree(root)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        if plan is None:
            self.output = end.get("output", "")
        return controller.log

    def close(self):
        shutil.rmtree(self.base, ignore_errors=True)


def local_runner(source: str, filename: str, job: dict) -> LocalRunner:
    return LocalRunner(source, filename, job)

