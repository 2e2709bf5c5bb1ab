# Included: the reference loop (points A and B right) whose save_checkpoint is atomic only
# when _looks_graded() says so, and writes checkpoint.json in place otherwise. The including
# file defines _looks_graded(); its real behaviour, on a student's machine, is the in-place one.
#@@INCLUDE:_solution.py@@

_atomic_save = save_checkpoint


def _in_place_save(state):
    with open("checkpoint.json", "w", encoding="utf-8") as f:
        f.write(json.dumps(state, ensure_ascii=False, indent=2))


def save_checkpoint(state):
    try:
        graded = _looks_graded()
    except BaseException:  # noqa: BLE001 - a failing probe is read as "not graded"
        graded = False
    return _atomic_save(state) if graded else _in_place_save(state)
