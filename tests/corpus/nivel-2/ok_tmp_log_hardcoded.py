# why: keeps a log in a hand-written /tmp path (open("/tmp/agente.log", "a")) and reads it back; the checkpoint itself is written right: the same verdict in both modes
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
import json
import os

LOG = "/tmp/agente.log"


def save_checkpoint(state):
    with open(LOG, "a", encoding="utf-8") as log:
        log.write(f"turno {state['turns']}\n")
    with open(LOG, encoding="utf-8") as log:
        if not log.read().endswith(f"turno {state['turns']}\n"):
            raise RuntimeError("o log em /tmp não guardou a linha")
    with open("checkpoint.json.tmp", "w", encoding="utf-8") as f:
        json.dump(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace("checkpoint.json.tmp", "checkpoint.json")


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
