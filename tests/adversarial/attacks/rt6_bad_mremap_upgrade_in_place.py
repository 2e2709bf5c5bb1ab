# Broken: keeps one mapping of the checkpoint for the whole run. The first save maps a temporary
# file read-only (O_RDWR descriptor), and every save sizes the file (ftruncate), grows the mapping by
# a page (mremap, which may move it), makes it writable with mprotect and stores the new text: after the
# first os.replace, that is checkpoint.json rewritten IN PLACE -- a kill between the ftruncate and
# the stores, or in the middle of them, leaves a file that does not load.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@

_mapa = {}


def save_checkpoint(state):
    data = _texto(state)
    n = len(data)
    if not _mapa:
        tmp = "checkpoint.json.tmp"
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        os.ftruncate(fd, 1)
        _mapa.update(fd=fd, addr=_mapear(4096, _PROT_READ, _MAP_SHARED, fd), size=4096, tmp=tmp)
    fd, addr, size = _mapa["fd"], _mapa["addr"], _mapa["size"]
    os.ftruncate(fd, n)
    # One more page at every save, wherever the kernel finds room: the mapping moves.
    new = _libc.mremap(addr, size, size + 4096, _MREMAP_MAYMOVE)
    if new in (None, _MAP_FAILED):
        raise OSError(_ct.get_errno(), "mremap")
    addr, size = new, size + 4096
    _ok(_libc.mprotect(addr, size, _PROT_READ | _PROT_WRITE), "mprotect")
    _ct.memmove(addr, data, n)
    _ok(_libc.msync(addr, size, _MS_SYNC), "msync")
    _mapa.update(addr=addr, size=size)
    if "tmp" in _mapa:
        os.replace(_mapa.pop("tmp"), "checkpoint.json")
