# Broken: the checkpoint is saved by a spawn worker (a fresh interpreter) that rewrites
# checkpoint.json IN PLACE in small pieces: a kill between two pieces leaves half a document.
#@@INCLUDE:_solution.py@@
import multiprocessing as _mp_worker


def grava_no_lugar(text):
    data = text.encode("utf-8").ljust(16384, b" ")
    fd = os.open("checkpoint.json", os.O_WRONLY | os.O_CREAT, 0o644)
    for offset in range(0, len(data), 512):
        os.pwrite(fd, data[offset:offset + 512], offset)
    os.close(fd)


_pool = []


def save_checkpoint(state):
    if not _pool:
        _pool.append(_mp_worker.get_context("spawn").Pool(1))
    _pool[0].apply(grava_no_lugar, (json.dumps(state, ensure_ascii=False, indent=2),))
