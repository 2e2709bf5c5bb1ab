# why: tools run in a ThreadPoolExecutor and a heartbeat thread writes a log file the whole time; the checkpoint is saved atomically from the main thread
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
# mode: cli-only
import threading
import time
from concurrent.futures import ThreadPoolExecutor

_stop = threading.Event()


def _heartbeat():
    with open("batimentos.log", "a", encoding="utf-8") as log:
        while not _stop.wait(0.01):
            log.write(f"{time.monotonic():.3f}\n")
            log.flush()


import json
import os


def save_checkpoint(state):
    tmp = "checkpoint.json.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(state, ensure_ascii=False, indent=2))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, "checkpoint.json")

def run_agent(task, tools, call_model, execute_tool):
    threading.Thread(target=_heartbeat, daemon=True).start()
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

        with ThreadPoolExecutor(max_workers=2) as pool:
            result = pool.submit(execute_tool, block["name"], block["input"]).result()
        state["messages"].append({
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": block["id"], "content": result}],
        })
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)

        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response.get("usage", {}).get("output_tokens", 0)

    _stop.set()
    return state
