# Honest: writes its temporary file with os.write (O_RDWR descriptor), maps it shared and read-only
# (PROT_READ), and forks a child that compares the mapping with the text and exits; the parent
# publishes the file with os.replace while its read-only mapping is still there, then unmaps. No
# mapping was ever writable.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@


def save_checkpoint(state):
    data = _texto(state)
    n = len(data)
    tmp = "checkpoint.json.tmp"
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    view = 0
    while view < n:
        view += os.write(fd, data[view:])
    os.fsync(fd)
    addr = _mapear(n, _PROT_READ, _MAP_SHARED, fd)
    pid = os.fork()
    if pid == 0:
        os._exit(0 if _ct.string_at(addr, n) == data else 1)
    _pid, status = os.waitpid(pid, 0)
    os.close(fd)
    if status != 0:
        raise RuntimeError("o temporário não tem o que foi gravado")
    os.replace(tmp, "checkpoint.json")
    _ok(_libc.munmap(addr, n), "munmap")
