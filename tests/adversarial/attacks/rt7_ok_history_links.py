# Honest: every state is first written (and fsync'ed) as its own history file historico/NNN.json, then
# published by a hard link to checkpoint.json.novo and os.replace onto checkpoint.json. The history
# keeps every version; checkpoint.json always names a complete one, the newest.
#@@INCLUDE:_solution.py@@
_n_rt7 = [0]


def save_checkpoint(state):
    _n_rt7[0] += 1
    os.makedirs("historico", exist_ok=True)
    path = os.path.join("historico", f"{_n_rt7[0]:03d}.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(state, ensure_ascii=False, indent=2))
        f.flush()
        os.fsync(f.fileno())
    try:
        os.unlink("checkpoint.json.novo")
    except FileNotFoundError:
        pass
    os.link(path, "checkpoint.json.novo")
    os.replace("checkpoint.json.novo", "checkpoint.json")
