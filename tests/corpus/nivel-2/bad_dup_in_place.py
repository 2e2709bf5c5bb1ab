# why: writes the checkpoint in place through a dup()-ed descriptor: the tap follows the file (its inode), not the descriptor
# expect: escrita-atomica=falhou ponto-a=ok seis-campos=ok executavel=ok
# says: truncou
import json
import os

def save_checkpoint(state):
    data = json.dumps(state).encode()
    fd = os.open("checkpoint.json.tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.close(fd)
    os.replace("checkpoint.json.tmp", "checkpoint.json")
    fd = os.open("checkpoint.json", os.O_RDONLY)
    import posix
    wfd = posix.open("checkpoint.json", os.O_WRONLY | os.O_TRUNC)
    twin = posix.dup(wfd)
    for start in range(0, len(data), 64):
        posix.write(twin, data[start:start + 64])

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
