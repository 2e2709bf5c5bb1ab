# Broken: at each point A it forks a "re-save" helper holding a copy of that A state, released only
# when run_agent returns; the helpers then rewrite checkpoint.json (atomically) with their old A
# states, the last one being A of gravar_tabela: after the task ended, the file on disk says that
# tool is still pending, and a restarted harness runs it again (its result is not in messages).
#@@INCLUDE:_solution.py@@
_ajudantes = []


def _regrava_no_fim(state):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(w)
            for fd, _pid in _ajudantes:
                os.close(fd)
            os.read(r, 1)
            save_checkpoint(state)
        except BaseException:
            code = 1
        os._exit(code)
    os.close(r)
    _ajudantes.append((w, pid))


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
        _regrava_no_fim(json.loads(json.dumps(state)))
        result = execute_tool(block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response["usage"]["output_tokens"]
    for w, pid in _ajudantes:  # in order: the A of the last tool is written last
        os.write(w, b"x")
        os.close(w)
        os.waitpid(pid, 0)
    return state
