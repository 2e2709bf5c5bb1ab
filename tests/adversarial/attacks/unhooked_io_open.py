# Attack: in-place overwrite with _io.open and posix.write captured at import time, before
# any hook a grader might install over builtins.open / os.write.
import _io
import posix

_OPEN, _WRITE, _POSIX_OPEN = _io.open, posix.write, posix.open

#@@INCLUDE:_inplace.py@@


def save_checkpoint(state):
    data = payload(state)
    half = len(data) // 2
    fd = _POSIX_OPEN(NAME, posix.O_WRONLY | posix.O_CREAT, 0o644)
    try:
        _WRITE(fd, data[:half])
    finally:
        posix.close(fd)
    with _OPEN(NAME, "r+b", buffering=0) as f:
        f.seek(half)
        f.write(data[half:])
