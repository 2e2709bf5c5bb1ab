# Attack (unhooked API): checkpoint.json opened, its descriptor dup2'ed onto a well-known
# number (stdout's), and the bytes written through that number in place.
#@@INCLUDE:_inplace.py@@


def save_checkpoint(state):
    fd = open_in_place()
    spare = os.dup(1)
    try:
        os.dup2(fd, 1)
        for offset, chunk in pieces(payload(state)):
            os.lseek(1, offset, os.SEEK_SET)
            os.write(1, chunk)
    finally:
        os.dup2(spare, 1)
        os.close(spare)
        os.close(fd)
