# Honest: each tool runs in a forked child (isolating the tool from the agent's memory), which calls
# execute_tool and sends the result back through a pipe; the loop waits for the child and reads the
# result before point B. Saves are the reference solution's, point A before the fork.
#@@INCLUDE:_solution.py@@


def _em_filho(execute_tool, name, input):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(r)
            data = json.dumps(execute_tool(name, input)).encode("utf-8")
            while data:
                data = data[os.write(w, data):]
        except BaseException:
            code = 1
        os._exit(code)
    os.close(w)
    chunks = []
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    _pid, status = os.waitpid(pid, 0)
    if status != 0:
        raise RuntimeError("a ferramenta falhou no processo filho")
    return json.loads(b"".join(chunks))


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
        result = _em_filho(execute_tool, block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response["usage"]["output_tokens"]
    return state
