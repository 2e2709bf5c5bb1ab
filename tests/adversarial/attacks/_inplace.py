# Included: the reference loop (points A and B are right) with save_checkpoint overwritten
# IN PLACE by a route that a Python-level tracer may not see. The file is padded to a fixed
# size so that no truncation is ever needed, and written in small pieces: a process killed
# between two pieces leaves a mix of the old and the new document.
#@@INCLUDE:_solution.py@@
import os as _os_inplace

SIZE = 16384
PIECE = 256
NAME = "checkpoint.json"


def payload(state):
    data = json.dumps(state, ensure_ascii=False, indent=2).encode("utf-8")
    return data.ljust(SIZE, b" ")


def pieces(data):
    return [(offset, data[offset:offset + PIECE]) for offset in range(0, len(data), PIECE)]


def open_in_place(flags=_os_inplace.O_WRONLY):
    # Never O_TRUNC: the old document stays until each byte is overwritten.
    return _os_inplace.open(NAME, flags | _os_inplace.O_CREAT, 0o644)
