# Attack (unhooked API): checkpoint.json overwritten in place through open(..., opener=) whose
# opener uses a folder descriptor and never truncates; unbuffered writes, piece by piece.
#@@INCLUDE:_inplace.py@@


def save_checkpoint(state):
    folder = os.open(".", os.O_RDONLY)
    try:
        def opener(path, flags):
            return os.open(path, (flags & ~os.O_TRUNC) | os.O_CREAT, 0o644, dir_fd=folder)

        with open(NAME, "r+b", buffering=0, opener=opener) as f:
            for offset, chunk in pieces(payload(state)):
                f.seek(offset)
                f.write(chunk)
    finally:
        os.close(folder)
