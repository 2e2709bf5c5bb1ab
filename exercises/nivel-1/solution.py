import json
import os


def save_checkpoint(state):
    checkpoint = {
        "version": state["version"],
        "task": state["task"],
        "turns": state["turns"],
        "tokensUsed": state["tokensUsed"],
        "messages": state["messages"],
        "pendingToolUse": state["pendingToolUse"],
    }
    # The same care as in the lesson: a whole temporary file, then an atomic swap.
    with open("checkpoint.json.tmp", "w", encoding="utf-8") as f:
        f.write(json.dumps(checkpoint, ensure_ascii=False))
    os.replace("checkpoint.json.tmp", "checkpoint.json")
