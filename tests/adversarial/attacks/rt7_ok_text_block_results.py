# Honest: the tool's result goes into messages as a list of text blocks (the API's other shape of
# tool_result content), in the messages sent to the model and saved alike; point A and point B as
# the reference solution makes them.
#@@INCLUDE:_solution.py@@


def run_agent(task, tools, call_model, execute_tool):
    state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += response["usage"]["output_tokens"]
    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})
        block = next(b for b in response["content"] if b["type"] == "tool_use")
        state["pendingToolUse"] = {"id": block["id"], "name": block["name"], "input": block["input"]}
        save_checkpoint(state)
        result = execute_tool(block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": [{"type": "text", "text": str(result)}]}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response["usage"]["output_tokens"]
    return state
