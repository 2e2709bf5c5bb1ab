# Broken: point B is handed to a forked child that waits 0.3 s ("to batch writes") and then saves
# atomically; the loop calls the model at once and waits for that child only before its next save.
# During the next model call the checkpoint still holds point A (pendingToolUse set, no result).
#@@INCLUDE:_solution.py@@
import time as _time_rt6

_filhos = []


def _espera_filhos():
    while _filhos:
        os.waitpid(_filhos.pop(), 0)


def _grava_depois(state):
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            _time_rt6.sleep(0.3)
            save_checkpoint(state)
        except BaseException:
            code = 1
        os._exit(code)
    _filhos.append(pid)


def run_agent(task, tools, call_model, execute_tool):
    state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += response["usage"]["output_tokens"]
    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})
        block = next(b for b in response["content"] if b["type"] == "tool_use")
        state["pendingToolUse"] = {"id": block["id"], "name": block["name"], "input": block["input"]}
        _espera_filhos()
        save_checkpoint(state)
        result = execute_tool(block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        _grava_depois(state)
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response["usage"]["output_tokens"]
    _espera_filhos()
    return state
