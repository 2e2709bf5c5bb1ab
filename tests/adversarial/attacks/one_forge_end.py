# Attack (a forged end): run_agent raises after the loop, and the exception is hidden by a
# forged "end" message claiming success, written to the runner's channel (fd 3). WHEN picks
# the checkpointing and how the process then ends:
#   exit0 - the starter's checkpointing (in place, no point A), then os._exit(0);
#   raise - the reference checkpointing, then the exception goes on (the runner reports it);
#   exit1 - the reference checkpointing, then os._exit(1).
import json
import os

#@@INCLUDE:_solution.py@@

WHEN = "@@WHEN@@"
_reference_run_agent = run_agent
_reference_save = save_checkpoint


def _starter_save(state):
    with open("checkpoint.json", "w", encoding="utf-8") as f:
        f.write(json.dumps(state, ensure_ascii=False, indent=2))


def _starter_run_agent(task, tools, call_model, execute_tool):
    # The starter's loop: point B only (no point A), in-place writes.
    state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += (response.get("usage") or {}).get("output_tokens") or 0
    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})
        block = next(b for b in response["content"] if b["type"] == "tool_use")
        result = execute_tool(block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        state["turns"] += 1
        _starter_save(state)
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += (response.get("usage") or {}).get("output_tokens") or 0
    return state


def run_agent(task, tools, call_model, execute_tool):
    loop = _starter_run_agent if WHEN == "exit0" else _reference_run_agent
    try:
        loop(task, tools, call_model, execute_tool)
        raise RuntimeError("falhou depois do laço")
    except RuntimeError:
        forged = {"t": "end", "kind": "ok", "phase": "call"}
        try:
            os.write(3, (json.dumps(forged) + "\n").encode())
        except OSError:
            pass
        if WHEN == "raise":
            raise
        os._exit(0 if WHEN == "exit0" else 1)
