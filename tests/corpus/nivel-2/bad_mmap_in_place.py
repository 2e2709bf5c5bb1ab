# why: overwrites checkpoint.json in place through a shared mmap: the stores are traced as writes of the published file, and a cut of them mixes old and new
# expect: escrita-atomica=falhou ponto-a=ok seis-campos=ok executavel=ok
# mode: cli-only
# says: truncamento
import json
import mmap
import os


def save_checkpoint(state):
    data = json.dumps(state, ensure_ascii=False, indent=2).encode("utf-8")
    fd = os.open("checkpoint.json", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        os.ftruncate(fd, len(data))
        with mmap.mmap(fd, len(data), mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE) as m:
            m[:] = data
            m.flush()
    finally:
        os.close(fd)

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
