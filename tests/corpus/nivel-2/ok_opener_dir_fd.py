# why: open(..., opener=) that opens relative to a folder descriptor (dir_fd), then os.replace with dir_fd
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
import json
import os


def save_checkpoint(state):
    folder = os.open(".", os.O_RDONLY)
    try:
        def opener(path, flags):
            return os.open(path, flags, 0o644, dir_fd=folder)

        with open("checkpoint.json.tmp", "w", encoding="utf-8", opener=opener) as f:
            json.dump(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace("checkpoint.json.tmp", "checkpoint.json", src_dir_fd=folder, dst_dir_fd=folder)
    finally:
        os.close(folder)

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
