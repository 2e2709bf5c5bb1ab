# Correto: checkpoint por temporário + os.replace. À parte, um log de depuração aberto com "w+b"
# antes de um fork: o filho relê o log do começo pelo descritor herdado (a mesma posição de
# arquivo do pai) enquanto o pai escreve nele. O conteúdo do log fica como o kernel o deixar; o
# registro do corretor tem de dizer o mesmo que o disco.
import json
import os


def _monitor(log):
    pid = os.fork()
    if pid == 0:
        try:
            for _ in range(20000):
                os.lseek(log.fileno(), 0, os.SEEK_SET)
                os.read(log.fileno(), 64)
        finally:
            os._exit(0)
    for i in range(300):
        os.write(log.fileno(), b"linha %05d\n" % i)
    os.waitpid(pid, 0)


def save_checkpoint(state):
    with open("checkpoint.json.tmp", "w", encoding="utf-8") as f:
        json.dump(state, f)
    os.replace("checkpoint.json.tmp", "checkpoint.json")


def run_agent(task, tools, call_model, execute_tool):
    with open("debug.log", "w+b", buffering=0) as log:
        _monitor(log)
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
