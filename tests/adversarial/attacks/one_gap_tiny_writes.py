# Attack (sampling gap): each save first writes hundreds of one-byte writes to a scratch file,
# then overwrites checkpoint.json in place: a grader that sampled its crash points would
# spend them on the scratch file.
#@@INCLUDE:_inplace.py@@


def save_checkpoint(state):
    with open("rascunho.txt", "wb", buffering=0) as f:
        for k in range(400):
            f.write(b"x")
    fd = open_in_place()
    try:
        for offset, chunk in pieces(payload(state)):
            os.pwrite(fd, chunk, offset)
    finally:
        os.close(fd)
