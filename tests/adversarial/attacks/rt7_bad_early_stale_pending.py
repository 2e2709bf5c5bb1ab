# Broken: right after each model reply the state is saved with the reply in messages but with
# pendingToolUse not updated yet (still the previous turn's call, already done); point A follows. A
# kill between the two leaves a checkpoint whose pending call is buscar_tickets (it ran: the resume
# runs it again) while the model asked for gravar_tabela (lost).
#@@INCLUDE:_solution.py@@


def run_agent(task, tools, call_model, execute_tool):
    state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    last = None
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += response["usage"]["output_tokens"]
    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})
        state["pendingToolUse"] = last
        save_checkpoint(state)
        block = next(b for b in response["content"] if b["type"] == "tool_use")
        state["pendingToolUse"] = last = {"id": block["id"], "name": block["name"], "input": block["input"]}
        save_checkpoint(state)
        result = execute_tool(block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response["usage"]["output_tokens"]
    return state
