# why: the exercise's starter: only messages reach the file
# expect: seis-campos=falhou
# says: tem só 1 dos seis campos do protocolo (`messages`)
import json


def save_checkpoint(state):
    with open("checkpoint.json", "w", encoding="utf-8") as f:
        f.write(json.dumps({"messages": state["messages"]}))
