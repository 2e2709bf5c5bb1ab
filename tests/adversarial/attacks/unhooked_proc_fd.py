# Attack: in-place overwrite through /proc/self/fd/<n>, a path that does not name checkpoint.json.
#@@INCLUDE:_inplace.py@@


def save_checkpoint(state):
    fd = open_in_place()
    try:
        with open(f"/proc/self/fd/{fd}", "r+b", buffering=0) as f:
            for offset, chunk in pieces(payload(state)):
                f.seek(offset)
                f.write(chunk)
    finally:
        os.close(fd)
