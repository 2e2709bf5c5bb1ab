# why: stages the document (a memfd, a pipe, a file beside it) and copies it into its own temporary file with os.sendfile, os.copy_file_range or os.splice, then os.replace: the supervisor performs the copies and traces them as writes
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
# mode: cli-only
import json
import os

_turn = [0]


def _copy_into(dst, data):
    _turn[0] += 1
    how = _turn[0] % 3
    if how == 2:
        r, w = os.pipe()
        try:
            os.write(w, data)
            done = 0
            while done < len(data):
                done += os.splice(r, dst, len(data) - done)
        finally:
            os.close(r)
            os.close(w)
        return
    # copy_file_range copies only within one file system: its source is staged next to the checkpoint.
    if how == 1:
        with open("checkpoint.json.stage", "wb") as f:
            f.write(data)
        src = os.open("checkpoint.json.stage", os.O_RDONLY)
        os.unlink("checkpoint.json.stage")
    else:
        src = os.memfd_create("estado")
        os.write(src, data)
    try:
        offset = 0
        while offset < len(data):
            if how == 1:
                offset += os.copy_file_range(src, dst, len(data) - offset, offset, offset)
            else:
                offset += os.sendfile(dst, src, offset, len(data) - offset)
    finally:
        os.close(src)


def save_checkpoint(state):
    data = json.dumps(state, ensure_ascii=False, indent=2).encode("utf-8")
    tmp = "checkpoint.json.tmp"
    dst = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        _copy_into(dst, data)
        os.fsync(dst)
    finally:
        os.close(dst)
    os.replace(tmp, "checkpoint.json")

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
