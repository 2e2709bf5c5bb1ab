# Honest: the state is laid out in an O_TMPFILE|O_EXCL scratch file (it can never get a name) through
# a shared writable mapping that stays mapped for the whole run; each save copies the scratch into
# checkpoint.json.tmp with os.copy_file_range, fsyncs it and os.replace's it. What is stored in the
# mapping never reaches a named file but through that copy.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@
_scratch = {}


def save_checkpoint(state):
    data = _texto(state)
    if not _scratch:
        fd = os.open(".", os.O_TMPFILE | os.O_RDWR | os.O_EXCL, 0o600)
        os.ftruncate(fd, 65536)
        _scratch.update(fd=fd, addr=_mapear(65536, _PROT_READ | _PROT_WRITE, _MAP_SHARED, fd))
    fd, addr = _scratch["fd"], _scratch["addr"]
    _ct.memset(addr, 0, 65536)
    _ct.memmove(addr, data, len(data))
    with open("checkpoint.json.tmp", "wb") as out:
        left, offset = len(data), 0
        while left:
            n = os.copy_file_range(fd, out.fileno(), left, offset, offset)
            if n <= 0:
                raise OSError("copy_file_range")
            left -= n
            offset += n
        out.flush()
        os.fsync(out.fileno())
    os.replace("checkpoint.json.tmp", "checkpoint.json")
