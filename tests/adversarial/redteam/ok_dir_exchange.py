import ctypes
import errno
import json
import os
import shutil

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
SYS_RENAMEAT2, AT_FDCWD, RENAME_EXCHANGE = 316, -100, 2


def save_checkpoint(state):
    # A pasta inteira é trocada num passo só: checkpoints/ aponta sempre para uma versão completa.
    shutil.rmtree("checkpoints.novo", ignore_errors=True)
    os.mkdir("checkpoints.novo")
    with open("checkpoints.novo/checkpoint.json", "w", encoding="utf-8") as f:
        json.dump(state, f, ensure_ascii=False)
    if _libc.syscall(SYS_RENAMEAT2, AT_FDCWD, b"checkpoints.novo", AT_FDCWD, b"checkpoints", RENAME_EXCHANGE):
        if ctypes.get_errno() != errno.ENOENT:
            raise OSError(ctypes.get_errno(), "renameat2")
        os.rename("checkpoints.novo", "checkpoints")
    else:
        shutil.rmtree("checkpoints.novo")


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
