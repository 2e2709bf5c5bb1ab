# why: writes the tmp to a hand-written /tmp path and shutil.move()s it into place: /tmp is another file system (bubblewrap's tmpfs, reduced mode's own /tmp), so the move is a copy over checkpoint.json and a delete, which a crash can tear
# expect: escrita-atomica=falhou ponto-a=ok seis-campos=ok executavel=ok
import json
import os
import shutil


def save_checkpoint(state):
    with open("/tmp/checkpoint.json.tmp", "w", encoding="utf-8") as f:
        json.dump(state, f)
        f.flush()
        os.fsync(f.fileno())
    shutil.move("/tmp/checkpoint.json.tmp", "checkpoint.json")


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
