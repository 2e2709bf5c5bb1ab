# why: five fields: pendingToolUse is left out
# expect: seis-campos=falhou
# says: tem só 5 dos seis campos do protocolo
import json


def save_checkpoint(state):
    doc = {k: state[k] for k in ("version", "task", "turns", "tokensUsed", "messages")}
    with open("checkpoint.json", "w") as f:
        json.dump(doc, f)
