# why: writes the six keys, but turns is always 0
# expect: seis-campos=falhou
# says: turns
import json


def save_checkpoint(state):
    doc = dict(state, turns=0)
    with open("checkpoint.json", "w") as f:
        json.dump(doc, f)
