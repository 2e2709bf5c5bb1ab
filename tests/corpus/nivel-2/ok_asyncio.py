# why: the loop is an async def run with asyncio.run, awaiting asyncio.sleep(0) between steps; saves are tmp + fsync + os.replace
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
import asyncio
import json
import os


def save_checkpoint(state):
    with open("checkpoint.json.tmp", "w", encoding="utf-8") as f:
        json.dump(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace("checkpoint.json.tmp", "checkpoint.json")


async def run(task, tools, call_model, execute_tool):
    state = {
        "version": 1,
        "task": task,
        "turns": 0,
        "tokensUsed": 0,
        "messages": [{"role": "user", "content": task}],
        "pendingToolUse": None,
    }
    await asyncio.sleep(0)
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += response.get("usage", {}).get("output_tokens", 0)

    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})
        block = next(b for b in response["content"] if b["type"] == "tool_use")

        state["pendingToolUse"] = {"id": block["id"], "name": block["name"], "input": block["input"]}
        save_checkpoint(state)
        await asyncio.sleep(0)

        result = execute_tool(block["name"], block["input"])
        state["messages"].append({
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": block["id"], "content": result}],
        })
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)
        await asyncio.sleep(0)

        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response.get("usage", {}).get("output_tokens", 0)

    return state


def run_agent(task, tools, call_model, execute_tool):
    return asyncio.run(run(task, tools, call_model, execute_tool))
