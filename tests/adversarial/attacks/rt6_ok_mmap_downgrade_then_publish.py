# Honest: fills the temporary file through a shared writable mapping, msync, then drops PROT_WRITE
# with mprotect(PROT_READ) and publishes it with os.replace while the (now read-only) mapping is
# still there; it is unmapped only at the next save. From the mprotect on, no store can reach the
# file: making it writable again would take another mprotect, a call the grader sees.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@

_leitura = []  # the read-only mapping of the published checkpoint, until the next save


def save_checkpoint(state):
    while _leitura:
        addr, n = _leitura.pop()
        _ok(_libc.munmap(addr, n), "munmap")
    data = _texto(state)
    n = len(data)
    tmp = "checkpoint.json.tmp"
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.ftruncate(fd, n)
        addr = _mapear(n, _PROT_READ | _PROT_WRITE, _MAP_SHARED, fd)
        _ct.memmove(addr, data, n)
        _ok(_libc.msync(addr, n, _MS_SYNC), "msync")
        _ok(_libc.mprotect(addr, n, _PROT_READ), "mprotect")
        os.fsync(fd)
    finally:
        os.close(fd)
    if _ct.string_at(addr, n) != data:
        raise RuntimeError("o temporário não tem o que foi gravado")
    os.replace(tmp, "checkpoint.json")
    _leitura.append((addr, n))
