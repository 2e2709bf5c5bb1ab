# why: the tmp is written with one os.writev of three pieces (opening brace, body, newline), fsynced, then os.replace
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
import json
import os


def save_checkpoint(state):
    body = json.dumps(state).encode()
    pieces = [body[:1], body[1:], b"\n"]
    fd = os.open("checkpoint.json.tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        written = os.writev(fd, pieces)
        rest = b"".join(pieces)[written:]
        while rest:
            rest = rest[os.write(fd, rest):]
        os.fsync(fd)
    finally:
        os.close(fd)
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
