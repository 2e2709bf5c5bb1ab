# Attack: in-place overwrite of checkpoint.json with os.pwritev (and os.pwrite), piece by piece.
#@@INCLUDE:_inplace.py@@


def save_checkpoint(state):
    fd = open_in_place()
    try:
        for n, (offset, chunk) in enumerate(pieces(payload(state))):
            if n % 2:
                os.pwritev(fd, [chunk[:100], chunk[100:]], offset)
            else:
                os.pwrite(fd, chunk, offset)
    finally:
        os.close(fd)
