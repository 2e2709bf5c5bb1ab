# Broken: like rt6_bad_mmap_child_writes_after_publish, but the child that fills the shared mapping
# first moves to a session of its own (os.setsid): the parent unmaps its mapping and publishes the
# file at once, and the child stores the text 0.2 s later into what is already checkpoint.json.
# Its own session changes nothing: the child is a process of the run, and the published file is zeros.
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
            os.setsid()
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
