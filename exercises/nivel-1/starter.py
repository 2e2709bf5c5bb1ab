import json


def save_checkpoint(state):
    with open("checkpoint.json", "w", encoding="utf-8") as f:
        f.write(json.dumps({"messages": state["messages"]}))
