# Red team, against the grader itself: the reference solution, then a last checkpoint of 4 MB (valid
# JSON followed by spaces) changed in place one byte at a time, COUNT times, each write swapping a
# space for a newline near its end. Every write leaves another valid 4 MB JSON, so every one is a
# crash state of its own, and the judge used to keep a copy of the file for each: ~76 GB for 19,000
# writes, within the grader's limits on operations (20,000) and bytes written (16 MB).
import json as _json
import os as _os

#@@INCLUDE:_solution.py@@

_honest_run_agent = run_agent
COUNT = int("@@COUNT@@")


def _bomb(state):
    with open("checkpoint.json.tmp", "w", encoding="utf-8") as f:
        f.write(_json.dumps(state) + " " * 4_000_000)
    _os.replace("checkpoint.json.tmp", "checkpoint.json")
    size = _os.path.getsize("checkpoint.json")
    fd = _os.open("checkpoint.json", _os.O_RDWR)
    try:
        for i in range(COUNT):
            _os.pwrite(fd, b"\n" if i % 2 == 0 else b" ", size - 10 - (i % 7))
    finally:
        _os.close(fd)


def run_agent(task, tools, call_model, execute_tool):
    state = _honest_run_agent(task, tools, call_model, execute_tool)
    _bomb(state if isinstance(state, dict) else {"fim": True})
    return state
