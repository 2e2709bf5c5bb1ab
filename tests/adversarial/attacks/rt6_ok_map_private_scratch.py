# Honest: before each save it opens the current checkpoint.json read-write and maps it privately
# (ACCESS_COPY: MAP_PRIVATE, writable), overwriting that private copy to see which prefix the new
# text shares with the old; private stores never reach the file. The save itself is the reference
# solution's; the private mapping is closed only after os.replace.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@

_prefixos = []


def save_checkpoint(state):
    data = _texto(state)
    copia = fd = None
    try:
        fd = os.open("checkpoint.json", os.O_RDWR)
        size = os.fstat(fd).st_size
        if size:
            copia = _mmap_mod.mmap(fd, size, access=_mmap_mod.ACCESS_COPY)
            k = 0
            while k < min(size, len(data)) and copia[k] == data[k]:
                k += 1
            _prefixos.append(k)
            copia[:min(size, len(data))] = data[:min(size, len(data))]  # private: the file keeps the old text
    except FileNotFoundError:
        pass
    _grava_atomico(state)
    if copia is not None:
        copia.close()
    if fd is not None:
        os.close(fd)
