# why: saves the model's reply (the assistant message with the tool_use block) as soon as it arrives, and only then sets pendingToolUse and saves point A: a kill after the first save resumes with a request for a tool and neither a pending call nor a result
# expect: escrita-atomica=ok ponto-a=falhou seis-campos=ok executavel=ok
# says: entre a resposta do modelo que pede
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
    state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += response["usage"]["output_tokens"]
    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})
        save_checkpoint(state)  # the reply is safe on disk... but the call it asks for is not
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
