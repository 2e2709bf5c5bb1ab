# Broken: when the tool returns, the loop clears pendingToolUse at once and hands a copy of the state
# to a forked helper that saves it ("a ferramenta já voltou"), waiting for it; only then it appends the
# tool_result and saves point B. A kill after the helper's save finds neither the call nor its result.
#@@INCLUDE:_solution.py@@


def _salva_em_filho(state):
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            save_checkpoint(state)
        except BaseException:
            code = 1
        os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    if status != 0:
        raise RuntimeError("o ajudante falhou")


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
        state["pendingToolUse"] = None
        _salva_em_filho(state)
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        state["turns"] += 1
        save_checkpoint(state)
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response["usage"]["output_tokens"]
    return state
