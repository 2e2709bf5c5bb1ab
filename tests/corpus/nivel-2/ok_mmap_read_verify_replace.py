# why: writes its temporary file with os.write, checks it through a read-only shared mmap of the same O_RDWR descriptor (kept open across os.replace) and publishes it: a read-only mapping writes nothing, so nothing is "mapped for writing"
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
import json
import mmap
import os


def save_checkpoint(state):
    data = json.dumps(state, ensure_ascii=False, indent=2).encode("utf-8")
    tmp = "checkpoint.json.tmp"
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
        view = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ)
        try:
            if view[:] != data:
                raise OSError("checkpoint temporário não confere")
            os.replace(tmp, "checkpoint.json")  # still mapped, read-only
        finally:
            view.close()
    finally:
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
