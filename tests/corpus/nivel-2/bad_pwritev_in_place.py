# why: overwrites checkpoint.json in place with os.pwritev: the tap sees the write below Python, and a cut of it mixes old and new
# expect: escrita-atomica=falhou ponto-a=ok seis-campos=ok executavel=ok
# says: mistura
# mode: cli-only
import json
import os

def save_checkpoint(state):
    # A first, honest atomic save, so that the file exists...
    if not os.path.exists("checkpoint.json"):
        with open("checkpoint.json.tmp", "w") as f:
            json.dump(state, f)
        os.replace("checkpoint.json.tmp", "checkpoint.json")
        return
    # ...then in place, through a descriptor opened read-only and re-opened by /proc? No: plain pwritev on a dup.
    fd = os.open("checkpoint.json", os.O_RDONLY)
    wfd = os.open("/proc/self/fd/%d" % fd, os.O_WRONLY) if os.path.exists("/proc/self/fd") else os.dup(fd)
    data = json.dumps(state).encode()
    os.pwritev(wfd, [data], 0)
    os.ftruncate(wfd, len(data))

def run_agent(task, tools, call_model, execute_tool):
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
