# Attack: in-place overwrite through descriptors made by os.dup / os.dup2.
#@@INCLUDE:_inplace.py@@


def save_checkpoint(state):
    fd = open_in_place()
    twin = os.dup(fd)
    other = os.dup2(fd, 77)
    try:
        for n, (offset, chunk) in enumerate(pieces(payload(state))):
            target = (twin, other)[n % 2]
            os.lseek(target, offset, os.SEEK_SET)
            os.write(target, chunk)
    finally:
        for d in (fd, twin, other):
            os.close(d)
