# Attack (decoys): a perfect atomic writer (tmp + fsync + os.replace, many times, the most
# changed files of the run) of state.json, of backup/checkpoint.json and of a history copy
# checkpoint.json.1, while checkpoint.json itself, the file a resume reads, is written in
# place and only at point B.
#@@INCLUDE:_solution.py@@

_atomic_save = save_checkpoint


def _atomic(path, state):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(state, ensure_ascii=False, indent=2))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def save_checkpoint(state):
    os.makedirs("backup", exist_ok=True)
    for _ in range(3):
        for path in ("state.json", "backup/checkpoint.json", "checkpoint.json.1"):
            _atomic(path, state)
    if state.get("pendingToolUse") is None:
        with open("checkpoint.json", "w", encoding="utf-8") as f:
            f.write(json.dumps(state, ensure_ascii=False, indent=2))
