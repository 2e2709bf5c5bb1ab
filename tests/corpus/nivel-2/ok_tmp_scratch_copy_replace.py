# why: writes its scratch copy to a hand-written /tmp path, copies it into the work folder (shutil.copy2) and os.replace()s the copy there: atomic, in both modes (reduced mode's /tmp is the run's own, as bubblewrap's)
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
import json
import os
import shutil


def save_checkpoint(state):
    scratch = "/tmp/rascunho.json"
    with open(scratch, "w", encoding="utf-8") as f:
        json.dump(state, f)
    if not os.path.exists(scratch) or "rascunho.json" not in os.listdir("/tmp"):
        raise RuntimeError("o rascunho sumiu de /tmp")
    shutil.copy2(scratch, "checkpoint.json.tmp")
    with open("checkpoint.json.tmp", "rb+") as f:
        os.fsync(f.fileno())
    os.replace("checkpoint.json.tmp", "checkpoint.json")
    os.unlink(scratch)


def run_agent(task, tools, call_model, execute_tool):
    state = {
        "version": 1,
        "task": task,
        "turns": 0,
        "tokensUsed": 0,
        "messages": [{"role": "user", "content": task}],
        "pendingToolUse": None,
    }

    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += (response.get("usage") or {}).get("output_tokens") or 0

    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})

        block = next(b for b in response["content"] if b["type"] == "tool_use")

        # Ponto de gravação A: o modelo pediu uma ferramenta que ainda não rodou.
        state["pendingToolUse"] = {
            "id": block["id"],
            "name": block["name"],
            "input": block["input"],
        }
        save_checkpoint(state)

        result = execute_tool(block["name"], block["input"])

        state["messages"].append({
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": block["id"], "content": result},
            ],
        })
        state["turns"] += 1
        state["pendingToolUse"] = None

        # Ponto de gravação B: o resultado da ferramenta deste turno já está inteiro em messages.
        save_checkpoint(state)

        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += (response.get("usage") or {}).get("output_tokens") or 0

    return state
