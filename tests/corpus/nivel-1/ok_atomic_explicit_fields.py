# why: six fields listed one by one, written atomically
# expect: seis-campos=ok
import json
import os

FIELDS = ("version", "task", "turns", "tokensUsed", "messages", "pendingToolUse")


def save_checkpoint(state):
    doc = {name: state[name] for name in FIELDS}
    with open("checkpoint.json.tmp", "w") as f:
        json.dump(doc, f)
    os.replace("checkpoint.json.tmp", "checkpoint.json")
