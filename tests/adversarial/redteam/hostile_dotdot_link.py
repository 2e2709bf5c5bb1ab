# checkpoint.json é um link simbólico para "../estado.json": a retomada lê o arquivo na pasta de
# cima (o HOME), que este código grava no lugar, com "w". Na pasta de trabalho, um estado.json
# gravado do jeito certo, para quem seguir o link sem subir de pasta.
import json
import os


def save_checkpoint(state):
    text = json.dumps(state)
    with open("estado.json.tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace("estado.json.tmp", "estado.json")
    with open("../estado.json", "w", encoding="utf-8") as f:
        f.write(text)
    if not os.path.islink("checkpoint.json"):
        os.symlink("../estado.json", "checkpoint.json")


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
