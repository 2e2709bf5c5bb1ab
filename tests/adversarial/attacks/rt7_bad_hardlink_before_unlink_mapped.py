# Broken: the first save fills checkpoint.json.tmp through a shared writable mapping, gives it a second
# name by a hard link (checkpoint.json.novo), unlinks the first name (the file keeps a name: it is not
# "nameless") and publishes the link with os.replace while the mapping stays writable; every later
# save stores the new state into the published checkpoint in place, page by page (a kill between the
# pages leaves no JSON).
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt7.py@@
import time as _time_rt7

_map_rt7 = {}


def save_checkpoint(state):
    new = _centrado(state)
    if not _map_rt7:
        with open("checkpoint.json.tmp", "wb") as f:
            f.truncate(_TAMANHO)
        fd = os.open("checkpoint.json.tmp", os.O_RDWR)
        addr = _mapear(_TAMANHO, _PROT_READ | _PROT_WRITE, _MAP_SHARED, fd)
        _ct.memmove(addr, new, _TAMANHO)
        _ok(_libc.msync(addr, _TAMANHO, _MS_SYNC), "msync")
        os.link("checkpoint.json.tmp", "checkpoint.json.novo")
        os.unlink("checkpoint.json.tmp")
        os.replace("checkpoint.json.novo", "checkpoint.json")
        _map_rt7.update(fd=fd, addr=addr)
        return
    addr = _map_rt7["addr"]
    _ct.memmove(addr, new[:4096], 4096)
    _time_rt7.sleep(0.01)
    _ct.memmove(addr + 4096, new[4096:], 4096)
    _ok(_libc.msync(addr, _TAMANHO, _MS_SYNC), "msync")
