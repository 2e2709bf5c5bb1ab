# Broken: at point A it also forks a "re-save" helper holding a copy of the A state, meant to make
# sure point A reached the disk; the helper is released when the next model reply arrives, and the
# loop waits for it before the next save. It then rewrites checkpoint.json (atomically) with the old
# A state -- pendingToolUse of a tool that already ran, without its result -- after point B: a kill
# right after that leaves a checkpoint that makes the resume run that tool again.
#@@INCLUDE:_solution.py@@
_ajudantes = []


def _regrava_depois(state):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(w)
            os.read(r, 1)
            save_checkpoint(state)
        except BaseException:
            code = 1
        os._exit(code)
    os.close(r)
    _ajudantes.append((pid, w))


def _libera_e_espera():
    while _ajudantes:
        pid, w = _ajudantes.pop()
        os.write(w, b"x")
        os.close(w)
        os.waitpid(pid, 0)


def run_agent(task, tools, call_model, execute_tool):
    state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += response["usage"]["output_tokens"]
    while response["stop_reason"] == "tool_use":
        _libera_e_espera()
        state["messages"].append({"role": "assistant", "content": response["content"]})
        block = next(b for b in response["content"] if b["type"] == "tool_use")
        state["pendingToolUse"] = {"id": block["id"], "name": block["name"], "input": block["input"]}
        save_checkpoint(state)
        _regrava_depois(json.loads(json.dumps(state)))
        result = execute_tool(block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response["usage"]["output_tokens"]
    _libera_e_espera()
    return state
