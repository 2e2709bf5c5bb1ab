# Honest: each save puts the JSON text in a multiprocessing.shared_memory block; a Process reads it
# from there and writes a temporary file, fsync, os.replace. Joined; the block is closed and
# unlinked after each save.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@
import multiprocessing as _mp_rt6
from multiprocessing import shared_memory as _shm_rt6


def _grava_da_memoria(nome, tamanho):
    bloco = _shm_rt6.SharedMemory(name=nome)
    try:
        data = bytes(bloco.buf[:tamanho])
    finally:
        bloco.close()
    tmp = "checkpoint.json.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, "checkpoint.json")


def save_checkpoint(state):
    data = _texto(state)
    bloco = _shm_rt6.SharedMemory(create=True, size=len(data))
    try:
        bloco.buf[:len(data)] = data
        p = _mp_rt6.Process(target=_grava_da_memoria, args=(bloco.name, len(data)))
        p.start()
        p.join()
        if p.exitcode != 0:
            raise RuntimeError("o processo que grava falhou")
    finally:
        bloco.close()
        bloco.unlink()
