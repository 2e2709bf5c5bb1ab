# why: after each atomic save, checks the published checkpoint through a read-only mapping of an O_RDWR descriptor while a worker thread has just made its own memory writable (mprotect, as glibc does when a thread's arena grows) and is still computing: nothing can write the checkpoint but the rename
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
# mode: cli-only
import ctypes
import hashlib
import json
import mmap
import os
import threading

libc = ctypes.CDLL(None, use_errno=True)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
SCRATCH = mmap.mmap(-1, 4096)
BLOB = bytes(32 << 20)


def digest(ready):
    libc.mprotect(ctypes.addressof(ctypes.c_char.from_buffer(SCRATCH)), 4096, mmap.PROT_READ | mmap.PROT_WRITE)
    ready.set()
    hashlib.sha256(BLOB).hexdigest()


def save_checkpoint(state):
    with open("checkpoint.json.tmp", "w", encoding="utf-8") as f:
        json.dump(state, f, ensure_ascii=False)
        f.flush()
        os.fsync(f.fileno())
    os.replace("checkpoint.json.tmp", "checkpoint.json")
    ready = threading.Event()
    worker = threading.Thread(target=digest, args=(ready,))
    worker.start()
    ready.wait()
    with open("checkpoint.json", "r+b") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
        assert json.loads(view[:]) == state
    worker.join()


def run_agent(task, tools, call_model, execute_tool):
    state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += response["usage"]["output_tokens"]
    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})
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
