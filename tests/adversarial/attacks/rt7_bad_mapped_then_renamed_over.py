# Broken: point A of gravar_tabela is stored in place into the published checkpoint.json through a
# shared writable mapping, page by page (a kill between the pages leaves no JSON); then an honest atomic
# save of the same state is renamed over the still-mapped file, whose last name goes (from then on it is
# not traced: `_nameless`), and the mapping is dropped. The stores made while it was the checkpoint count.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt7.py@@
import time as _time_rt7

_saves_rt7 = [0]


def save_checkpoint(state):
    _saves_rt7[0] += 1
    if _saves_rt7[0] == 3:  # point A of gravar_tabela
        new = _centrado(state)
        fd = os.open("checkpoint.json", os.O_RDWR)
        addr = _mapear(_TAMANHO, _PROT_READ | _PROT_WRITE, _MAP_SHARED, fd)
        _ct.memmove(addr, new[:4096], 4096)
        _time_rt7.sleep(0.05)
        _ct.memmove(addr + 4096, new[4096:], 4096)
        _salva_centrado(state)  # renamed over the file still mapped: its last name goes
        _ok(_libc.munmap(addr, _TAMANHO), "munmap")
        os.close(fd)
        return
    _salva_centrado(state)
