import ctypes
import json
import os

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
SYS_RENAMEAT2 = 316  # x86-64
AT_FDCWD = -100


def _renameat2(src, dst, flags=0):
    rc = _libc.syscall(SYS_RENAMEAT2, AT_FDCWD, src.encode(), AT_FDCWD, dst.encode(), flags)
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def save_checkpoint(state):
    with open("checkpoint.json.tmp", "w", encoding="utf-8") as f:
        json.dump(state, f, ensure_ascii=False)
    _renameat2("checkpoint.json.tmp", "checkpoint.json")


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
