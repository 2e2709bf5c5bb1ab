# why: saves A, runs the tool, then saves once more with pendingToolUse = None before the result is in messages (point B comes later): a crash at that extra save resumes as if the model never asked for the tool
# expect: escrita-atomica=ok ponto-a=falhou seis-campos=ok executavel=ok
# says: entre a volta de `execute_tool` e o ponto B, o checkpoint em disco já não tinha a chamada pendente nem o resultado
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
        state["pendingToolUse"] = None
        save_checkpoint(state)  # "the tool is done": but its result is not saved yet
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
