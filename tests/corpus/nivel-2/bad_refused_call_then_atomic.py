# why: asks for an io_uring (refused by the grader: its writes pass through no call the grader sees; allowed on most students' machines) and saves in place when it gets one, atomically when it does not: the run the grader sees is not the one a student's machine would make, so it cannot pass
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=falhou
# mode: cli-only
# says: a correção recusa
import ctypes
import json
import os

IO_URING_SETUP = 425  # x86-64 and arm64 alike
params = ctypes.create_string_buffer(120)
IN_PLACE = ctypes.CDLL(None, use_errno=True).syscall(IO_URING_SETUP, 4, params) >= 0


def save_checkpoint(state):
    data = json.dumps(state, ensure_ascii=False)
    if IN_PLACE:
        with open("checkpoint.json", "w", encoding="utf-8") as f:
            f.write(data)
        return
    with open("checkpoint.json.tmp", "w", encoding="utf-8") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace("checkpoint.json.tmp", "checkpoint.json")


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
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response["usage"]["output_tokens"]
    return state
