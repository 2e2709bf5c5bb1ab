# why: after each atomic save, checks the published checkpoint through a read-only mapping of an O_RDWR descriptor while a worker thread keeps allocating (glibc grows that thread's arena with mprotect adding PROT_WRITE, which may still be running when the mapping is made): nothing can write the checkpoint but the rename
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
# mode: cli-only
import json
import mmap
import os
import threading

stop = threading.Event()


def churn():
    # Strings over 512 bytes come from malloc: in a thread, its own arena, grown page by page.
    kept = []
    while not stop.is_set():
        kept.append(["x" * (700 + i % 300) for i in range(2000)])
        if len(kept) > 40:
            kept.clear()


def save_checkpoint(state):
    with open("checkpoint.json.tmp", "w", encoding="utf-8") as f:
        json.dump(state, f, ensure_ascii=False)
        f.flush()
        os.fsync(f.fileno())
    os.replace("checkpoint.json.tmp", "checkpoint.json")
    with open("checkpoint.json", "r+b") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
        assert json.loads(view[:]) == state


def run_agent(task, tools, call_model, execute_tool):
    worker = threading.Thread(target=churn)
    worker.start()
    try:
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
    finally:
        stop.set()
        worker.join()
