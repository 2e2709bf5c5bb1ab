# Attack (unhooked API): the new document goes to a temporary file, then into checkpoint.json
# in place by the kernel (os.sendfile, or os.copy_file_range on odd saves); if the kernel
# call is refused, the fallback is a plain in-place write.
#@@INCLUDE:_inplace.py@@
_turn = [0]


def save_checkpoint(state):
    data = payload(state)
    with open("novo.tmp", "wb") as f:
        f.write(data)
    _turn[0] += 1
    src = os.open("novo.tmp", os.O_RDONLY)
    dst = open_in_place()
    try:
        for offset, chunk in pieces(data):
            try:
                if _turn[0] % 2 and hasattr(os, "copy_file_range"):
                    os.copy_file_range(src, dst, len(chunk), offset, offset)
                else:
                    os.lseek(dst, offset, os.SEEK_SET)
                    os.sendfile(dst, src, offset, len(chunk))
            except OSError:
                os.pwrite(dst, chunk, offset)
    finally:
        os.close(src)
        os.close(dst)
