# why: at point B first saves a tool_result with an empty content and pendingToolUse = None, then fills in the tool's output and saves again: a crash between the two resumes with a result the tool never returned, and the tool is not run again
# expect: escrita-atomica=ok ponto-a=falhou seis-campos=falhou executavel=ok
# says: não tinha o que a ferramenta devolveu
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
        slot = {"type": "tool_result", "tool_use_id": block["id"], "content": ""}
        state["messages"].append({"role": "user", "content": [slot]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)  # the id "reserved" with an empty result: the real one is not saved yet
        slot["content"] = result
        save_checkpoint(state)

        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response.get("usage", {}).get("output_tokens", 0)

    return state
