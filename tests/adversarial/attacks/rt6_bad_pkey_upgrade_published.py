# Broken: the first save is the reference solution's, padded with spaces to a fixed 8 KB; then it
# opens the published checkpoint.json read-write and maps it shared READ-ONLY, and every later save
# makes that mapping writable with pkey_mprotect (pkey -1) and stores the new (padded) text straight
# into checkpoint.json: an in-place rewrite through memory, where a kill leaves a mix of two states.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@

_libc.pkey_mprotect.argtypes = [_ct.c_void_p, _ct.c_size_t, _ct.c_int, _ct.c_int]
TAMANHO = 8192
_mapa = {}


def save_checkpoint(state):
    data = _texto(state)
    if len(data) > TAMANHO:
        raise RuntimeError("estado grande demais")
    data = data.ljust(TAMANHO, b" ")
    if not _mapa:
        tmp = "checkpoint.json.tmp"
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, "checkpoint.json")
        fd = os.open("checkpoint.json", os.O_RDWR)
        _mapa.update(fd=fd, addr=_mapear(TAMANHO, _PROT_READ, _MAP_SHARED, fd))
        return
    addr = _mapa["addr"]
    _ok(_libc.pkey_mprotect(addr, TAMANHO, _PROT_READ | _PROT_WRITE, -1), "pkey_mprotect")
    _ct.memmove(addr, data, TAMANHO)
    _ok(_libc.msync(addr, TAMANHO, _MS_SYNC), "msync")
    _ok(_libc.mprotect(addr, TAMANHO, _PROT_READ), "mprotect")
