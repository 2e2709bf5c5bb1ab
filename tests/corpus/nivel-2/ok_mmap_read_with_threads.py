# why: a heartbeat thread runs the whole time; the save checks its temporary file through read-only shared mmaps (ACCESS_READ of an O_RDONLY descriptor and PROT_READ of the O_RDWR one) before os.replace: read-only mappings are never refused, threads or not
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
# mode: cli-only
import json
import mmap
import os
import threading
import time

_beats = []
threading.Thread(target=lambda: [(_beats.append(time.monotonic()), time.sleep(0.005)) for _ in range(400)],
                 daemon=True).start()


def save_checkpoint(state):
    data = json.dumps(state, ensure_ascii=False, indent=2).encode("utf-8")
    tmp = "checkpoint.json.tmp"
    with open(tmp, "w+b") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
        with mmap.mmap(f.fileno(), 0, mmap.MAP_SHARED, mmap.PROT_READ) as view:
            assert view[:] == data
    with open(tmp, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
        assert view[:] == data
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
