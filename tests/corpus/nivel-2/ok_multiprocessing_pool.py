# why: multiprocessing as a student uses it (Pool, Queue, Lock, Manager, shared_memory) and point A saved through Pool(1).apply: each run has a private writable /dev/shm, the children are traced, and the saves are atomic
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
# mode: cli-only
import json, os, multiprocessing as mp
from multiprocessing import shared_memory

def save_checkpoint(state):
    tmp = "checkpoint.json.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(state, ensure_ascii=False))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, "checkpoint.json")

def _square(x):
    return x * x

def run_agent(task, tools, call_model, execute_tool):
    with mp.Pool(2) as pool:
        assert pool.map(_square, range(5)) == [0, 1, 4, 9, 16]
    q = mp.Queue(); q.put(1); assert q.get() == 1
    lock = mp.Lock()
    with lock: pass
    with mp.Manager() as m:
        d = m.dict(); d["a"] = 1; assert d["a"] == 1
    shm = shared_memory.SharedMemory(create=True, size=64)
    shm.buf[:3] = b"abc"; shm.close(); shm.unlink()
    state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += response.get("usage", {}).get("output_tokens", 0)
    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})
        block = next(b for b in response["content"] if b["type"] == "tool_use")
        state["pendingToolUse"] = {"id": block["id"], "name": block["name"], "input": block["input"]}
        with mp.Pool(1) as pool:
            pool.apply(save_checkpoint, (state,))
        result = execute_tool(block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response.get("usage", {}).get("output_tokens", 0)
    return state
