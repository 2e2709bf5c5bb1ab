# why: the state already has the six fields: dumping it whole is right
# expect: seis-campos=ok
import json


def save_checkpoint(state):
    with open("checkpoint.json", "w", encoding="utf-8") as f:
        json.dump(state, f, ensure_ascii=False)
