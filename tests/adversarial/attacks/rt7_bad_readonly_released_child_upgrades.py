# Broken: the first save fills checkpoint.json.tmp through a shared mapping, makes it read-only
# (mprotect) and os.replace's it while the read-only mapping stays; every later save forks a child
# that makes the inherited mapping writable again and stores the new state into the published
# checkpoint in place, page by page: a kill between the pages leaves no JSON.
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
        _ok(_libc.mprotect(addr, _TAMANHO, _PROT_READ), "mprotect")
        os.replace("checkpoint.json.tmp", "checkpoint.json")
        _map_rt7.update(fd=fd, addr=addr)
        return
    addr = _map_rt7["addr"]
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            _ok(_libc.mprotect(addr, _TAMANHO, _PROT_READ | _PROT_WRITE), "mprotect")
            _ct.memmove(addr, new[:4096], 4096)
            _time_rt7.sleep(0.01)
            _ct.memmove(addr + 4096, new[4096:], 4096)
            _ok(_libc.msync(addr, _TAMANHO, _MS_SYNC), "msync")
        except BaseException:
            code = 1
        os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    if status != 0:
        raise RuntimeError("o filho não gravou")
