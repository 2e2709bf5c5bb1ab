# Broken: saves checkpoint.json right (the reference solution), and after each save a "clean" mirror
# in checkpoints/checkpoint.json, written atomically too, with pendingToolUse always null. Both files
# are judged: during each tool the mirror does not carry the call.
#@@INCLUDE:_solution.py@@
_grava_principal = save_checkpoint


def save_checkpoint(state):
    _grava_principal(state)
    espelho = dict(state, pendingToolUse=None)
    os.makedirs("checkpoints", exist_ok=True)
    tmp = "checkpoints/checkpoint.json.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(espelho, f, ensure_ascii=False, indent=2)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, "checkpoints/checkpoint.json")
