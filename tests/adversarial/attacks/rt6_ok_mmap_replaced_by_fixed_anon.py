# Honest: fills its temporary file through a shared writable mapping, msync, and then drops that
# mapping by mapping anonymous memory over it (mmap MAP_FIXED | MAP_ANONYMOUS | MAP_PRIVATE, no
# munmap); only then fsync and os.replace. When the file takes the checkpoint's name no mapping of it
# is left.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@

_MAP_FIXED, _MAP_ANONYMOUS = 0x10, 0x20


def save_checkpoint(state):
    data = _texto(state)
    n = len(data)
    tmp = "checkpoint.json.tmp"
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.ftruncate(fd, n)
        addr = _mapear(n, _PROT_READ | _PROT_WRITE, _MAP_SHARED, fd)
        _ct.memmove(addr, data, n)
        _ok(_libc.msync(addr, n, _MS_SYNC), "msync")
        over = _libc.mmap(addr, n, _PROT_READ | _PROT_WRITE, _MAP_FIXED | _MAP_ANONYMOUS | _MAP_PRIVATE, -1, 0)
        if over != addr:
            raise OSError(_ct.get_errno(), "mmap MAP_FIXED")
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, "checkpoint.json")
    _ok(_libc.munmap(addr, n), "munmap")  # the anonymous memory
