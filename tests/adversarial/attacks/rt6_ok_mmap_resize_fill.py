# Honest: maps a one-byte temporary file with the mmap module, grows it with mmap.resize (ftruncate
# and mremap), fills it, flushes, closes the mapping, fsync and os.replace.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@


def save_checkpoint(state):
    data = _texto(state)
    tmp = "checkpoint.json.tmp"
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.ftruncate(fd, 1)
        m = _mmap_mod.mmap(fd, 1)
        m.resize(len(data))
        m[:] = data
        m.flush()
        m.close()
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, "checkpoint.json")
