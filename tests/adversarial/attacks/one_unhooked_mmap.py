# Attack (unhooked API): checkpoint.json overwritten in place through a shared writable mmap
# (now traced: its stores show up as writes of the published file); were it refused, it would
# fall back to nothing at all on the first save and to an in-place write afterwards.
import mmap

#@@INCLUDE:_inplace.py@@


def save_checkpoint(state):
    data = payload(state)
    fd = open_in_place(os.O_RDWR)
    try:
        os.ftruncate(fd, len(data))
        try:
            with mmap.mmap(fd, len(data), mmap.MAP_SHARED, mmap.PROT_WRITE | mmap.PROT_READ) as m:
                for offset, chunk in pieces(data):
                    m[offset:offset + len(chunk)] = chunk
                m.flush()
        except OSError:
            for offset, chunk in pieces(data):
                os.pwrite(fd, chunk, offset)
    finally:
        os.close(fd)
