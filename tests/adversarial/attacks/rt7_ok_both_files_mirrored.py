# Honest: every save writes checkpoint.json and a mirror checkpoints/checkpoint.json, each with its own
# temporary file, fsync and os.replace, the mirror second. Both are judged; both are always a
# complete state, and the mirror is at most one save behind during that save.
#@@INCLUDE:_solution.py@@
_grava_rt7 = save_checkpoint


def save_checkpoint(state):
    _grava_rt7(state)
    os.makedirs("checkpoints", exist_ok=True)
    tmp = os.path.join("checkpoints", "checkpoint.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(state, ensure_ascii=False, indent=2))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, os.path.join("checkpoints", "checkpoint.json"))
