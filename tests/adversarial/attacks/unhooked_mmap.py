# Attack: in-place overwrite through a shared memory map (no write system call at all).
import mmap

#@@INCLUDE:_inplace.py@@


def save_checkpoint(state):
    fd = open_in_place(os.O_RDWR)
    try:
        if os.fstat(fd).st_size < SIZE:
            os.write(fd, b" " * SIZE)
        with mmap.mmap(fd, SIZE) as m:
            for offset, chunk in pieces(payload(state)):
                m[offset:offset + len(chunk)] = chunk
                m.flush()
    finally:
        os.close(fd)
