# Honest: maps the temporary file shared and writable, forks; the child fills the mapping and exits;
# the parent waits, checks, unmaps, fsync and publishes with os.replace: no mapping is left when the
# file takes the checkpoint's name.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@


def save_checkpoint(state):
    data = _texto(state)
    n = len(data)
    tmp = "checkpoint.json.tmp"
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    os.ftruncate(fd, n)
    addr = _mapear(n, _PROT_READ | _PROT_WRITE, _MAP_SHARED, fd)
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            _ct.memmove(addr, data, n)
        except BaseException:
            code = 1
        os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    ok = status == 0 and _ct.string_at(addr, n) == data
    _ok(_libc.munmap(addr, n), "munmap")
    if not ok:
        raise RuntimeError("o filho não gravou o temporário")
    os.fsync(fd)
    os.close(fd)
    os.replace(tmp, "checkpoint.json")
