# why: saves once more right after the tool returns, pendingToolUse still set, and clears it only in the save that adds the result (point B): every state between carries the call
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
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
        save_checkpoint(state)  # a progress save: the call is still pending
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
