# Attack (unhooked API): the file is opened read-only, then reopened for writing through
# /proc/self/fd/N (a path with no "checkpoint.json" in it) and overwritten in place.
#@@INCLUDE:_inplace.py@@


def save_checkpoint(state):
    os.close(open_in_place())
    ro = os.open(NAME, os.O_RDONLY)
    try:
        with open(f"/proc/self/fd/{ro}", "r+b", buffering=0) as f:
            for offset, chunk in pieces(payload(state)):
                f.seek(offset)
                f.write(chunk)
    finally:
        os.close(ro)
