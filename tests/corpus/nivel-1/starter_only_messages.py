# why: the exercise's starter: only messages reach the file
# expect: seis-campos=falhou
# says: faltam os campos
import json


def save_checkpoint(state):
    with open("checkpoint.json", "w", encoding="utf-8") as f:
        f.write(json.dumps({"messages": state["messages"]}))
