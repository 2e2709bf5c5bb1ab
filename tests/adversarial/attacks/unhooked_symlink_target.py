# Attack: checkpoint.json is a symlink to dados.bin, which is overwritten in place.
#@@INCLUDE:_inplace.py@@


def save_checkpoint(state):
    if not os.path.islink(NAME):
        if os.path.lexists(NAME):
            os.unlink(NAME)
        os.symlink("dados.bin", NAME)
    fd = os.open("dados.bin", os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for offset, chunk in pieces(payload(state)):
            os.pwrite(fd, chunk, offset)
    finally:
        os.close(fd)
