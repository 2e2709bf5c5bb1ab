# Broken: saves with json.dump straight into checkpoint.json (a kill mid-write leaves half a file),
# and also hammers the process-group calls: children that setsid and setpgid, thousands of getpgid /
# getsid / setpgid / kill(0, 0) / kill(-pgid, 0) calls, invalid signals and groups, pids of gone
# processes, and SIGKILL to a process outside the run (its pid and group given by the test) once the
# run has groups of its own. None of it may stall or crash the grader, signal anything outside the
# run, or change the verdict: only escrita-atomica fails.
import json
import os
import signal


def save_checkpoint(state):
    with open("checkpoint.json", "w", encoding="utf-8") as f:
        json.dump(state, f, ensure_ascii=False, indent=2)


def _storm():
    kids = []
    for _ in range(12):
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.setsid()
                for _ in range(150):
                    os.getpgid(0); os.getsid(0); os.getpgrp()
                    try:
                        os.setpgid(0, 0)
                    except OSError:
                        pass
                    os.kill(0, 0)
                    os.killpg(os.getpgrp(), 0)
            except BaseException:
                code = 1
            os._exit(code)
        kids.append(pid)
    for sig in (-1, 65, 1000, 2 ** 31 - 1):
        for target in (0, -os.getpgrp()):
            try:
                os.kill(target, sig)
            except (OSError, ValueError, OverflowError):
                pass
    for target in (1, 2, 300, 2 ** 22, 2 ** 31 - 1, -(2 ** 31) + 1, -1):
        for call in (os.getpgid, os.getsid):
            try:
                call(target)
            except (OSError, OverflowError):
                pass
        try:
            os.setpgid(abs(target) if target != -(2 ** 31) + 1 else 5, 1)
        except (OSError, OverflowError):
            pass
    for pid in kids:
        os.waitpid(pid, 0)
    outside = int("@@DECOY_PID@@")
    for call in (lambda: os.kill(outside, signal.SIGKILL), lambda: os.killpg(outside, signal.SIGKILL),
                 lambda: os.kill(-outside, signal.SIGKILL), lambda: os.setpgid(0, outside),
                 lambda: os.getpgid(outside), lambda: os.getsid(outside)):
        try:
            call()
        except OSError:
            pass
    for pid in kids:  # gone: their numbers name nothing now
        for call in (lambda p: os.killpg(p, 0), os.getpgid, lambda p: os.setpgid(p, p)):
            try:
                call(pid)
            except OSError:
                pass


def run_agent(task, tools, call_model, execute_tool):
    _storm()
    state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += response["usage"]["output_tokens"]
    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})
        block = next(b for b in response["content"] if b["type"] == "tool_use")
        state["pendingToolUse"] = {"id": block["id"], "name": block["name"], "input": block["input"]}
        save_checkpoint(state)
        result = execute_tool(block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response["usage"]["output_tokens"]
    return state
