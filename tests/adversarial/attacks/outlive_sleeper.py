# Honest saves (the reference solution's loop), but run_agent leaves a forked child that outlives
# the run: it execs a sleeper (argv[0] carries the test's marker) that never ends by itself.
import json
import os

MARKER = "@@MARKER@@"
SLEEP = "/bin/sleep" if os.path.exists("/bin/sleep") else "/usr/bin/sleep"


def save_checkpoint(state):
    tmp = "checkpoint.json.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(state, ensure_ascii=False))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, "checkpoint.json")


def run_agent(task, tools, call_model, execute_tool):
    state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += response.get("usage", {}).get("output_tokens", 0)
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
        state["tokensUsed"] += response.get("usage", {}).get("output_tokens", 0)
    if os.fork() == 0:
        try:
            os.execv(SLEEP, [f"{MARKER}-outlive", "600"])
        finally:
            os._exit(0)
    return state
