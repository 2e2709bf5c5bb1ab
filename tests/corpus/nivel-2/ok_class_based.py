# why: a Checkpointer class; the loop written differently
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
import json
import os


class Checkpointer:
    def __init__(self, path="checkpoint.json"):
        self.path = path
        self.tmp = path + ".tmp"

    def save(self, state):
        with open(self.tmp, "w", encoding="utf-8") as f:
            json.dump(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(self.tmp, self.path)


def run_agent(task, tools, call_model, execute_tool):
    cp = Checkpointer()
    state = dict(version=1, task=task, turns=0, tokensUsed=0,
                 messages=[{"role": "user", "content": task}], pendingToolUse=None)
    while True:
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += response.get("usage", {}).get("output_tokens", 0)
        if response["stop_reason"] != "tool_use":
            return state
        state["messages"].append({"role": "assistant", "content": response["content"]})
        block = [b for b in response["content"] if b["type"] == "tool_use"][0]
        state["pendingToolUse"] = {key: block[key] for key in ("id", "name", "input")}
        cp.save(state)
        output = execute_tool(block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": output}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        cp.save(state)
