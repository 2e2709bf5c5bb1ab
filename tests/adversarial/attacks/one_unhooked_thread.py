# Attack (unhooked API): a worker thread does the in-place overwrite while the main thread
# waits (join), so the main thread's calls show nothing.
import threading

#@@INCLUDE:_inplace.py@@


def _write(data):
    fd = open_in_place()
    try:
        for offset, chunk in pieces(data):
            os.pwrite(fd, chunk, offset)
    finally:
        os.close(fd)


def save_checkpoint(state):
    worker = threading.Thread(target=_write, args=(payload(state),))
    worker.start()
    worker.join()
