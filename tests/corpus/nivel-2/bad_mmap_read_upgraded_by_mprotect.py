# why: maps its temporary file read-only (O_RDWR descriptor), makes the mapping writable with mprotect, fills it and publishes the file while still mapped: the upgrade is seen, so the checkpoint is a file any store can change at any instant
# expect: escrita-atomica=falhou ponto-a=ok seis-campos=ok executavel=ok
# says: mapeado na memória
# mode: cli-only
import ctypes
import json
import os

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
PROT_READ, PROT_WRITE, MAP_SHARED = 1, 2, 1
_kept = []


def save_checkpoint(state):
    data = json.dumps(state, ensure_ascii=False, indent=2).encode("utf-8")
    tmp = "checkpoint.json.tmp"
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    os.ftruncate(fd, len(data))
    address = libc.mmap(None, len(data), PROT_READ, MAP_SHARED, fd, 0)
    if libc.mprotect(address, len(data), PROT_READ | PROT_WRITE) != 0:
        raise OSError(ctypes.get_errno(), "mprotect")
    ctypes.memmove(address, data, len(data))
    os.fsync(fd)
    os.close(fd)
    _kept.append(address)  # never unmapped
    os.replace(tmp, "checkpoint.json")

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
    state["tokensUsed"] += response.get("usage", {}).get("output_tokens", 0)

    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})
        block = next(b for b in response["content"] if b["type"] == "tool_use")

        state["pendingToolUse"] = {"id": block["id"], "name": block["name"], "input": block["input"]}
        save_checkpoint(state)

        result = execute_tool(block["name"], block["input"])
        state["messages"].append({
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": block["id"], "content": result}],
        })
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)

        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response.get("usage", {}).get("output_tokens", 0)

    return state
