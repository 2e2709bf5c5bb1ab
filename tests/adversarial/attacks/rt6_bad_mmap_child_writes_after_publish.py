# Broken: maps the temporary file shared and writable, forks a child to fill it, and -- without
# waiting -- unmaps its own mapping and publishes the file with os.replace; the child stores the text
# 0.2 s later, through its inherited mapping, into the file that is already checkpoint.json. Right
# after the replace the checkpoint is all zeros; the child is waited for at the end of the save.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@
import time as _time_rt6


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
            _time_rt6.sleep(0.2)
            _ct.memmove(addr, data, n)
            _libc.msync(addr, n, _MS_SYNC)
        except BaseException:
            code = 1
        os._exit(code)
    _ok(_libc.munmap(addr, n), "munmap")
    os.close(fd)
    os.replace(tmp, "checkpoint.json")
    os.waitpid(pid, 0)
