# why: saves checkpoint.json atomically at both points, then, once the final answer is in, moves it into checkpoints/checkpoint.json (archiving is allowed): that name first appears after the task ended, beside the file the task saved to, so no tool ran while it existed
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
import json
import os


def save_checkpoint(state):
    final_path = "checkpoint.json"
    tmp_path = final_path + ".tmp"  # no mesmo diretório: a substituição continua atômica

    with open(tmp_path, "w", encoding="utf-8") as f:
        f.write(json.dumps(state, ensure_ascii=False, indent=2))
        f.flush()
        os.fsync(f.fileno())  # os bytes do temporário vão para o disco antes da substituição

    # Se o processo morrer em qualquer ponto, checkpoint.json é a versão anterior ou a nova,
    # sempre inteira.
    os.replace(tmp_path, final_path)

    # Contra falta de energia, a renomeação também precisa ir para o disco: fsync no diretório.
    # Com os dois fsync, o checkpoint resiste a uma falta de energia no Linux (no macOS, só com
    # fcntl.F_FULLFSYNC). No Windows não dá para abrir um diretório com os.open: lá, pula-se.
    if os.name == "posix":
        folder = os.open(".", os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


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

    # The task is over: the finished checkpoint is archived where the lesson's save_checkpoint keeps
    # them, so a restarted harness reading checkpoint.json does not call the model again.
    os.makedirs("checkpoints", exist_ok=True)
    os.replace("checkpoint.json", "checkpoints/checkpoint.json")
    return state
