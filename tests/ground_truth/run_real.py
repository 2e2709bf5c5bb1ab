"""Run one nivel-2 submission for real, with no crash simulator: plain file I/O in the current folder.

    python run_real.py SUBMISSION.py      (cwd: an empty folder; run under strace by the test)

The fake model and tools come from graders.fake_agent.script(). Marker syscalls that
nothing else makes (getxattr on a path that does not exist) tell strace where run_agent
starts and ends and when each tool runs, so a SIGKILL can be injected right there; markers
in call_model tell when the task has ended. The last line printed is
`GROUND-TRUTH-RESULT {json}` (only if run_agent returned).
"""

from __future__ import annotations

import copy
import json
import os
import sys
import types

# No pathlib here: every import the runner makes is syscalls strace has to stop on, in every run.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from graders.fake_agent import MAX_MODEL_CALLS, TASK, script  # noqa: E402

MARKER_DIR = "/__ground_truth_marker__"
RESULT_PREFIX = "GROUND-TRUTH-RESULT "


def marker(label: str) -> None:
    """One getxattr syscall on a path that cannot exist: strace sees it, the disk does not change."""
    try:
        os.getxattr(f"{MARKER_DIR}/{label}", "user.ground_truth")
    except OSError:
        pass


def load(path: str) -> types.ModuleType:
    # exec from source (no import machinery): nothing is written to __pycache__.
    with open(path, encoding="utf-8") as f:
        source = f.read()
    module = types.ModuleType("submission")
    module.__file__ = path
    sys.modules["submission"] = module  # enum, dataclasses and namedtuple look their module up
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def main(path: str) -> int:
    module = load(path)
    s = script()
    model_calls: list[int] = []
    tool_calls: list[list] = []

    def call_model(*args, tools=None, messages=None, **kwargs):
        if args or messages is None:
            raise TypeError("call_model(tools=..., messages=...)")
        if len(model_calls) >= MAX_MODEL_CALLS:
            raise RuntimeError("run_agent kept calling the model")
        model_calls.append(1)
        # Not a kill point: tells the test how many model calls came before each kill point.
        marker(f"model/{len(model_calls)}")
        responses = s["responses"]
        return copy.deepcopy(responses[min(len(model_calls), len(responses)) - 1])

    def execute_tool(name, input):
        if len(tool_calls) >= MAX_MODEL_CALLS:
            raise RuntimeError("run_agent kept calling tools")
        tool_calls.append([name, copy.deepcopy(input)])
        # The tool "runs" here: a kill at this marker is a crash inside execute_tool.
        marker(f"tool/{len(tool_calls)}/{name}")
        return s["tool_results"][name]

    marker("start")
    state = module.run_agent(TASK, copy.deepcopy(s["tools"]), call_model, execute_tool)
    marker("end")
    result = {"model_calls": len(model_calls), "tool_calls": tool_calls, "returned": type(state).__name__}
    sys.stdout.write("\n" + RESULT_PREFIX + json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
