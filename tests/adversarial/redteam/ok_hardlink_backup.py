# Correto: temporário + os.replace; antes de cada gravação, o checkpoint atual ganha um segundo
# nome (os.link) como cópia de segurança. No fim, um os.replace da cópia sobre o checkpoint: os dois
# nomes são o mesmo arquivo, e o rename não faz nada (POSIX).
import json
import os


def save_checkpoint(state):
    if os.path.exists("checkpoint.json"):
        if os.path.exists("anterior.json"):
            os.unlink("anterior.json")
        os.link("checkpoint.json", "anterior.json")
    with open("checkpoint.json.tmp", "w", encoding="utf-8") as f:
        json.dump(state, f)
    os.replace("checkpoint.json.tmp", "checkpoint.json")


def _settle():
    if os.path.exists("anterior.json"):
        os.unlink("anterior.json")
    os.link("checkpoint.json", "anterior.json")
    os.replace("anterior.json", "checkpoint.json")


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

    _settle()
    return state
