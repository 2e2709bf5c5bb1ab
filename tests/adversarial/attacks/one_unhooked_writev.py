# Attack (unhooked API): checkpoint.json overwritten in place with os.writev, many buffers per
# call, several calls per save.
#@@INCLUDE:_inplace.py@@


def save_checkpoint(state):
    fd = open_in_place()
    try:
        chunks = [chunk for _offset, chunk in pieces(payload(state))]
        for start in range(0, len(chunks), 8):
            os.writev(fd, chunks[start:start + 8])
    finally:
        os.close(fd)
