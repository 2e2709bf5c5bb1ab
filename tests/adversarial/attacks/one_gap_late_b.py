# Attack (sampling gap): atomic writes and point A right, but point B is saved only AFTER the
# next model call returns: while that call runs, the disk still says the tool is pending.
#@@INCLUDE:_solution.py@@


def run_agent(task, tools, call_model, execute_tool):
    state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += (response.get("usage") or {}).get("output_tokens") or 0
    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})
        block = next(b for b in response["content"] if b["type"] == "tool_use")
        state["pendingToolUse"] = {"id": block["id"], "name": block["name"], "input": block["input"]}
        save_checkpoint(state)
        result = execute_tool(block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        response = call_model(tools=tools, messages=state["messages"])
        save_checkpoint(state)  # point B, one model call too late
        state["tokensUsed"] += (response.get("usage") or {}).get("output_tokens") or 0
    return state
