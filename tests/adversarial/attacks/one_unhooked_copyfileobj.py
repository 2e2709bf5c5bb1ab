# Attack (unhooked API): the new document is written whole to a temporary file, then copied
# over checkpoint.json with shutil: copyfileobj into the open file on odd saves, copyfile on
# even ones (copyfile tries the kernel's sendfile first).
import shutil

#@@INCLUDE:_inplace.py@@
_turn = [0]


def save_checkpoint(state):
    with open("novo.tmp", "wb") as f:
        f.write(payload(state))
    _turn[0] += 1
    if _turn[0] % 2:
        with open("novo.tmp", "rb") as src, open(NAME, "r+b" if os.path.exists(NAME) else "wb") as dst:
            shutil.copyfileobj(src, dst, PIECE)
    else:
        shutil.copyfile("novo.tmp", NAME)
