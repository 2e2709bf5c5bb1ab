# Broken: fills the temporary file through a mmap with ACCESS_COPY (MAP_PRIVATE, writable) and
# "flushes" it: private stores never reach the file, so the file published with os.replace holds
# only the zeros of its ftruncate. Every checkpoint on disk is NUL bytes: nothing loads.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@


def save_checkpoint(state):
    data = _texto(state)
    tmp = "checkpoint.json.tmp"
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.ftruncate(fd, len(data))
        m = _mmap_mod.mmap(fd, len(data), access=_mmap_mod.ACCESS_COPY)
        m[:] = data
        m.flush()
        m.close()
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, "checkpoint.json")
