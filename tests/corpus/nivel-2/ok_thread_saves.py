# why: a worker thread does every save (threading.Thread + join) with tmp + fsync + os.replace: the tap follows all the process's threads (the browser has no threads, and says so)
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
# mode: cli-only
import json
import os
import threading


def _write(state):
    with open("checkpoint.json.tmp", "w", encoding="utf-8") as f:
        json.dump(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace("checkpoint.json.tmp", "checkpoint.json")


def save_checkpoint(state):
    snapshot = json.loads(json.dumps(state))  # the thread gets its own copy
    worker = threading.Thread(target=_write, args=(snapshot,))
    worker.start()
    worker.join()  # saved before the loop goes on


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
