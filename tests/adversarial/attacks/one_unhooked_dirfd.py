# Attack (unhooked API): checkpoint.json overwritten in place through os.open(..., dir_fd=)
# on a folder descriptor, piece by piece with os.pwrite.
#@@INCLUDE:_inplace.py@@


def save_checkpoint(state):
    folder = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        fd = os.open(NAME, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=folder)
        try:
            for offset, chunk in pieces(payload(state)):
                os.pwrite(fd, chunk, offset)
        finally:
            os.close(fd)
    finally:
        os.close(folder)
