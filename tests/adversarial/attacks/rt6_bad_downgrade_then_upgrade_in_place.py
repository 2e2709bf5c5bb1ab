# Broken: the first save fills a fixed-size (8 KB, space-padded) temporary file through a shared
# writable mapping, drops PROT_WRITE (mprotect PROT_READ) and publishes it with os.replace, keeping the
# mapping; every later save makes it writable again (mprotect) and stores the new text straight into
# checkpoint.json, then drops PROT_WRITE again. In-place rewrites through memory: a kill mixes states.
# (A guard for judging mappings by their protection: read-only between saves is not read-only for good.)
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@

TAMANHO = 8192
_mapa = {}


def save_checkpoint(state):
    data = _texto(state)
    if len(data) > TAMANHO:
        raise RuntimeError("estado grande demais")
    data = data.ljust(TAMANHO, b" ")
    if not _mapa:
        tmp = "checkpoint.json.tmp"
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        os.ftruncate(fd, TAMANHO)
        addr = _mapear(TAMANHO, _PROT_READ | _PROT_WRITE, _MAP_SHARED, fd)
        _ct.memmove(addr, data, TAMANHO)
        _ok(_libc.msync(addr, TAMANHO, _MS_SYNC), "msync")
        _ok(_libc.mprotect(addr, TAMANHO, _PROT_READ), "mprotect")
        os.fsync(fd)
        os.close(fd)
        os.replace(tmp, "checkpoint.json")
        _mapa["addr"] = addr
        return
    addr = _mapa["addr"]
    _ok(_libc.mprotect(addr, TAMANHO, _PROT_READ | _PROT_WRITE), "mprotect")
    _ct.memmove(addr, data, TAMANHO)
    _ok(_libc.msync(addr, TAMANHO, _MS_SYNC), "msync")
    _ok(_libc.mprotect(addr, TAMANHO, _PROT_READ), "mprotect")
