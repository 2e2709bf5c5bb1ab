"""run_traced called as a library (reduced mode, no sandbox): it waits only for the run's own
processes, so its caller's children are neither reaped nor waited for."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# In a process of its own: run_traced is given a caller with two children of its own, one already
# exited (its status must still be there for the caller) and one alive (it must not hold the run up).
CALLER = r"""
import json, os, sys, tempfile, time
from graders.trace.kernel import run_traced
exited = os.fork()
if exited == 0:
    os._exit(7)
alive = os.fork()
if alive == 0:
    time.sleep(30)
    os._exit(0)
time.sleep(0.2)
base = tempfile.mkdtemp()
work, tmp = os.path.join(base, "projeto"), os.path.join(base, "tmp")
os.mkdir(work), os.mkdir(tmp)
start = time.monotonic()
trace = run_traced("def save_checkpoint(state):\n    pass\n", "solucao.py",
                   {"function": "save_checkpoint", "states": [{}]}, work=work, tmp=tmp, reduced=True,
                   env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, python=sys.executable)
took = time.monotonic() - start
try:
    got = os.waitpid(exited, os.WNOHANG)
    exited_status = os.waitstatus_to_exitcode(got[1]) if got[0] else "running"
except ChildProcessError:
    exited_status = "reaped by the tap"
alive_now = os.waitpid(alive, os.WNOHANG)[0] == 0
os.kill(alive, 9)
os.waitpid(alive, 0)
print(json.dumps({"end": trace.end, "code": trace.code, "took": took, "exited": exited_status, "alive": alive_now}))
"""


def test_the_callers_children_are_left_alone():
    run = subprocess.run([sys.executable, "-c", CALLER], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout)
    assert (seen["end"], seen["code"]) == ("exit", 0), seen
    assert seen["exited"] == 7, seen
    assert seen["alive"], seen
    assert seen["took"] < 1.5, f"a live child of the caller held the run up: {seen}"
