# Attack (sampling gap): before each save, hundreds of os.replace calls that fail (into a
# folder that does not exist), then the checkpoint is written in place, piece by piece. A
# grader that counted failed calls as crash points would run out of budget before the write.
#@@INCLUDE:_inplace.py@@


def save_checkpoint(state):
    for k in range(300):
        try:
            os.replace(NAME, f"nao-existe/{k}/{NAME}")
        except OSError:
            pass
    fd = open_in_place()
    try:
        for offset, chunk in pieces(payload(state)):
            os.pwrite(fd, chunk, offset)
    finally:
        os.close(fd)
