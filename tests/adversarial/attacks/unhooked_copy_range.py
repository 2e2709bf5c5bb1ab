# Attack: the new document is written whole to a temporary file, then copied IN PLACE over
# checkpoint.json by the kernel (os.copy_file_range / os.sendfile / shutil.copyfile).
import shutil

#@@INCLUDE:_inplace.py@@
_turn = [0]


def save_checkpoint(state):
    with open("novo.tmp", "wb") as f:
        f.write(payload(state))
    _turn[0] += 1
    how = _turn[0] % 3
    if how == 2:
        shutil.copyfile("novo.tmp", NAME)
        return
    src = os.open("novo.tmp", os.O_RDONLY)
    dst = open_in_place()
    try:
        for offset, chunk in pieces(payload(state)):
            if how == 1 and hasattr(os, "copy_file_range"):
                os.copy_file_range(src, dst, len(chunk), offset, offset)
            else:
                os.lseek(dst, offset, os.SEEK_SET)
                os.sendfile(dst, src, offset, len(chunk))
    finally:
        os.close(src)
        os.close(dst)
