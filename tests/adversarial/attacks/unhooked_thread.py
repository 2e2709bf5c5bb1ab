# Attack: the starter's in-place write ("w" truncates, then writes), done in another thread.
import threading

#@@INCLUDE:_inplace.py@@


def _write(state):
    with open(NAME, "w", encoding="utf-8") as f:
        for offset, chunk in pieces(payload(state)):
            f.write(chunk.decode("utf-8", "ignore"))
            f.flush()


def save_checkpoint(state):
    worker = threading.Thread(target=_write, args=(state,))
    worker.start()
    worker.join()
