import json


def save_checkpoint(state):
    checkpoint = {
        "version": state["version"],
        "task": state["task"],
        "turns": state["turns"],
        "tokensUsed": state["tokensUsed"],
        "messages": state["messages"],
        "pendingToolUse": state["pendingToolUse"],
    }
    with open("checkpoint.json", "w", encoding="utf-8") as f:
        f.write(json.dumps(checkpoint, ensure_ascii=False))
