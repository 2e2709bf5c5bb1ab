# why: a sample for the ground-truth test, not a corpus file: the first checkpoint goes through a tmp
# and a rename; later ones overwrite checkpoint.json in place with ONE os.write, never truncated
# (each state is longer than the last). Only a write torn in half (power loss) can break it.
import json
import os


def save_checkpoint(state):
    data = json.dumps(state).encode()
    if not os.path.exists("checkpoint.json"):
        with open("checkpoint.json.tmp", "wb") as f:
            f.write(data)
        os.replace("checkpoint.json.tmp", "checkpoint.json")
        return
    fd = os.open("checkpoint.json", os.O_WRONLY)
    os.write(fd, data)
    os.close(fd)


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
