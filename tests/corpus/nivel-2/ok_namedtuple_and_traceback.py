# why: correct, and uses namedtuple, an Enum and traceback.print_exc: the standard library's own frame use is fine
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
import enum
import json
import os
import traceback
from collections import namedtuple

Paths = namedtuple("Paths", "final tmp")
PATHS = Paths("checkpoint.json", "checkpoint.json.tmp")


class Stage(enum.Enum):
    A = "antes da ferramenta"
    B = "depois do resultado"


def save_checkpoint(state, stage):
    try:
        with open(PATHS.tmp, "w") as f:
            json.dump(state, f)
        os.replace(PATHS.tmp, PATHS.final)
    except OSError:
        traceback.print_exc()
        raise


def run_agent(task, tools, call_model, execute_tool):
    try:
        int("não é número")
    except ValueError:
        traceback.print_exc()
    state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += response["usage"]["output_tokens"]
    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})
        block = next(b for b in response["content"] if b["type"] == "tool_use")
        state["pendingToolUse"] = {"id": block["id"], "name": block["name"], "input": block["input"]}
        save_checkpoint(state, Stage.A)
        result = execute_tool(block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state, Stage.B)
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response["usage"]["output_tokens"]
    return state
