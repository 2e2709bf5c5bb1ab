# Honest: the parent maps its temporary file read-only (PROT_READ, from an O_RDWR descriptor) and
# forks; the child makes its copy of the mapping writable (mprotect), fills it, msync, exits. The
# parent waits for it, checks the bytes through its own read-only mapping, and publishes the file
# with os.replace before unmapping: the only writable mapping ended with the child.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@


def save_checkpoint(state):
    data = _texto(state)
    n = len(data)
    tmp = "checkpoint.json.tmp"
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    os.ftruncate(fd, n)
    addr = _mapear(n, _PROT_READ, _MAP_SHARED, fd)
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            _ok(_libc.mprotect(addr, n, _PROT_READ | _PROT_WRITE), "mprotect")
            _ct.memmove(addr, data, n)
            _ok(_libc.msync(addr, n, _MS_SYNC), "msync")
        except BaseException:
            code = 1
        os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    if status != 0 or _ct.string_at(addr, n) != data:
        raise RuntimeError("o filho não gravou o temporário")
    os.fsync(fd)
    os.close(fd)
    os.replace(tmp, "checkpoint.json")
    _ok(_libc.munmap(addr, n), "munmap")
