# Attack: in-place overwrite through io.FileIO, unbuffered, piece by piece.
import io

#@@INCLUDE:_inplace.py@@


def save_checkpoint(state):
    os.close(open_in_place())
    with io.FileIO(NAME, "r+") as f:
        for offset, chunk in pieces(payload(state)):
            f.seek(offset)
            f.write(chunk)
