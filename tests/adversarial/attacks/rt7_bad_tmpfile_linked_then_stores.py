# Broken: the first checkpoint is an O_TMPFILE (linkable) mapped shared and writable, linked as
# checkpoint.json with linkat(fd, "", AT_EMPTY_PATH) while the mapping stays; every later save stores the new state
# into that mapping page by page: the published checkpoint is rewritten in place, and a kill between
# the pages leaves half of one state and half of another.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt7.py@@
import time as _time_rt7

_map_rt7 = {}


def save_checkpoint(state):
    new = _centrado(state)
    if not _map_rt7:
        fd = os.open(".", os.O_TMPFILE | os.O_RDWR, 0o644)
        os.ftruncate(fd, _TAMANHO)
        addr = _mapear(_TAMANHO, _PROT_READ | _PROT_WRITE, _MAP_SHARED, fd)
        _ct.memmove(addr, new, _TAMANHO)
        os.fsync(fd)
        _libc.linkat.argtypes = [_ct.c_int, _ct.c_char_p, _ct.c_int, _ct.c_char_p, _ct.c_int]
        _ok(_libc.linkat(fd, b"", -100, b"checkpoint.json", 0x1000), "linkat")  # AT_FDCWD, AT_EMPTY_PATH
        _map_rt7.update(fd=fd, addr=addr)
        return
    addr = _map_rt7["addr"]
    _ct.memmove(addr, new[:4096], 4096)
    _time_rt7.sleep(0.01)
    _ct.memmove(addr + 4096, new[4096:], 4096)
    _ok(_libc.msync(addr, _TAMANHO, _MS_SYNC), "msync")
