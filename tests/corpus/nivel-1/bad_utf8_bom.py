# why: the file starts with a UTF-8 BOM (encoding="utf-8-sig"): the lesson's resume, open(..., encoding="utf-8") then json.load, fails on it
# expect: seis-campos=falhou
# says: marca BOM do UTF-8
import json


def save_checkpoint(state):
    with open("checkpoint.json", "w", encoding="utf-8-sig") as f:
        json.dump(state, f, ensure_ascii=False)
