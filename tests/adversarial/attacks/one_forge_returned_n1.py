# Attack (forged "returned", nivel-1): save_checkpoint really saves only the messages (the
# Nível 1 mistake), but first writes the whole state, claims on the runner's channel that it
# has returned, and only then overwrites the file with the messages alone. WHEN picks how far
# it goes:
#   line     - the fake {"t": "returned"} is written straight to fd 3 (its reply swallowed);
#   suppress - also reaches the runner's channel object (gc) and drops the runner's own,
#              honest "returned" messages, so only the forged ones are ever seen.
import gc
import json
import os

WHEN = "@@WHEN@@"
_patched = []


def _suppress():
    for obj in gc.get_objects():
        if type(obj).__name__ == "_Channel" and obj not in _patched:
            _patched.append(obj)
            honest = obj.ask

            def ask(message, honest=honest):
                if isinstance(message, dict) and message.get("t") == "returned":
                    return {}
                return honest(message)

            obj.ask = ask


def _forge_returned():
    os.write(3, b'{"t": "returned"}\n')
    got = b""
    while not got.endswith(b"\n"):
        chunk = os.read(3, 1)
        if not chunk:
            break
        got += chunk


def save_checkpoint(state):
    if WHEN == "suppress":
        _suppress()
    with open("checkpoint.json", "w", encoding="utf-8") as f:
        f.write(json.dumps(state))
    _forge_returned()
    with open("checkpoint.json", "w", encoding="utf-8") as f:
        f.write(json.dumps({"messages": state["messages"]}))
