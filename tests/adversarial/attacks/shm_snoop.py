# Second run in the same sandbox: looks for what the first left in /dev/shm (and for the machine's
# decoy). Found anything: saves in place (a broken checkpoint, so escrita-atomica fails); found
# nothing: saves atomically and passes.
import json
import os


# Every spelling the kernel takes for /dev/shm: each must name the run's own.
SPELLINGS = ("/dev/shm", "/dev//shm", "//dev/shm", "/dev/./shm", "/dev/shm/../shm", "/dev/shm/../../dev/shm")


def _found() -> bool:
    for shm in SPELLINGS:
        try:
            names = os.listdir(shm)
        except OSError:
            names = []
        if any("@@UID@@" in n or "@@DECOY@@" in n for n in names):
            return True
        for path in (f"{shm}/segredo-@@UID@@", f"{shm}/@@DECOY@@"):
            try:
                os.stat(path)
                return True
            except OSError:
                pass
            if os.access(path, os.F_OK):
                return True
            try:
                with open(path, "rb") as f:
                    f.read()
                return True
            except OSError:
                pass
    return False


def save_checkpoint(state, leak):
    if leak:
        with open("checkpoint.json", "w", encoding="utf-8") as f:
            f.write(json.dumps(state, ensure_ascii=False))
        return
    with open("checkpoint.json.tmp", "w", encoding="utf-8") as f:
        f.write(json.dumps(state, ensure_ascii=False))
        f.flush()
        os.fsync(f.fileno())
    os.replace("checkpoint.json.tmp", "checkpoint.json")


def run_agent(task, tools, call_model, execute_tool):
    leak = _found()
    state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += response.get("usage", {}).get("output_tokens", 0)
    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})
        block = next(b for b in response["content"] if b["type"] == "tool_use")
        state["pendingToolUse"] = {"id": block["id"], "name": block["name"], "input": block["input"]}
        save_checkpoint(state, leak)
        result = execute_tool(block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state, leak)
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response.get("usage", {}).get("output_tokens", 0)
    return state
