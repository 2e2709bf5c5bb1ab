# Broken: at each point B a helper is forked with a copy of that state ("to re-save it in case the
# first save did not reach the disk"); it is released when the next tool starts and the tool waits for
# it. So during gravar_tabela, checkpoint.json goes back to turn 1's point B: the results are all
# there but gravar_tabela's pending call is gone -- a kill during the tool forgets the call.
#@@INCLUDE:_solution.py@@
_ajudantes_rt7 = []


def _ajudante(state):
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
    _ajudantes_rt7.append((pid, w))


def _libera():
    while _ajudantes_rt7:
        pid, w = _ajudantes_rt7.pop()
        os.write(w, b"x")
        os.close(w)
        os.waitpid(pid, 0)


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
        _libera()
        result = execute_tool(block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)
        _ajudante(json.loads(json.dumps(state)))
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response["usage"]["output_tokens"]
    for pid, w in _ajudantes_rt7:  # the last point B's helper: never released, just ended
        os.close(w)
        os.waitpid(pid, 0)
    return state
