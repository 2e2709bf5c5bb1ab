# why: the tmp is written through io.FileIO (unbuffered, no open()), fsynced, then os.replace: the tap sees the bytes below Python
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
import io
import json
import os


def save_checkpoint(state):
    with io.FileIO("checkpoint.json.tmp", "w") as f:
        data = memoryview(json.dumps(state).encode())
        while data:
            data = data[f.write(data):]
        os.fsync(f.fileno())
    os.replace("checkpoint.json.tmp", "checkpoint.json")

def run_agent(task, tools, call_model, execute_tool):
    state = {
        "version": 1,
        "task": task,
        "turns": 0,
        "tokensUsed": 0,
        "messages": [{"role": "user", "content": task}],
        "pendingToolUse": None,
    }
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += response.get("usage", {}).get("output_tokens", 0)

    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})
        block = next(b for b in response["content"] if b["type"] == "tool_use")

        state["pendingToolUse"] = {"id": block["id"], "name": block["name"], "input": block["input"]}
        save_checkpoint(state)

        result = execute_tool(block["name"], block["input"])
        state["messages"].append({
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": block["id"], "content": result}],
        })
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)

        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response.get("usage", {}).get("output_tokens", 0)

    return state
