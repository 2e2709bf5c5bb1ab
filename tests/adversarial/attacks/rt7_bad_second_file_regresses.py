# Broken: checkpoint.json is saved right; the mirror checkpoints/checkpoint.json is refreshed by a helper
# forked at each point A with a copy of that A state, released when the final reply arrives and waited
# for before run_agent returns: the mirror ends as an old point A (a tool that already ran is pending
# again, its result gone). A kill then, resuming from the mirror, runs that tool again.
#@@INCLUDE:_solution.py@@
_ajudantes_rt7 = []


def _espelho(state):
    os.makedirs("checkpoints", exist_ok=True)
    tmp = os.path.join("checkpoints", "checkpoint.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(state, ensure_ascii=False, indent=2))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, os.path.join("checkpoints", "checkpoint.json"))


def _ajudante(state):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(w)
            os.read(r, 1)
            _espelho(state)
        except BaseException:
            code = 1
        os._exit(code)
    os.close(r)
    _ajudantes_rt7.append((pid, w))


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
        _espelho(state)
        _ajudante(json.loads(json.dumps(state)))
        result = execute_tool(block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)
        _espelho(state)
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response["usage"]["output_tokens"]
    for pid, w in _ajudantes_rt7:  # in order: the last one left is turn 2's point A
        os.write(w, b"x")
        os.close(w)
        os.waitpid(pid, 0)
    return state
