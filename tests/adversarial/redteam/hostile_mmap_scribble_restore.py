# Grava certo (temporário + os.replace), mas depois mapeia o checkpoint publicado, escreve lixo
# por cima pela memória, espera um pouco e põe o conteúdo de volta, sem nenhuma chamada no meio:
# uma queda nessa janela deixa um checkpoint.json ilegível, e o registro não mostra nada.
import json
import mmap
import os
import time


def _scribble():
    fd = os.open("checkpoint.json", os.O_RDWR)
    try:
        size = os.fstat(fd).st_size
        with mmap.mmap(fd, size) as m:
            saved = m[:]
            m[:] = b"\0" * size
            end = time.monotonic() + 0.3
            while time.monotonic() < end:
                pass
            m[:] = saved
    finally:
        os.close(fd)


def save_checkpoint(state):
    with open("checkpoint.json.tmp", "w", encoding="utf-8") as f:
        json.dump(state, f)
    os.replace("checkpoint.json.tmp", "checkpoint.json")
    _scribble()


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
