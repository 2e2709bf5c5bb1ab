# Race on an open file shared after fork: the reference solution, plus a scratch file whose open
# file (position and O_APPEND flag) a child keeps changing, by lseek and fcntl(F_SETFL), none of which
# reaches the grader, while the parent writes numbered records to it. Whatever the kernel makes of it,
# the grader's record must say where each write landed: the file on disk after the run must be the
# one the recorded writes give.
import fcntl as _fcntl
import os as _os

#@@INCLUDE:_solution.py@@

_honest_run_agent = run_agent


def _race():
    fd = _os.open("rascunho.bin", _os.O_RDWR | _os.O_CREAT | _os.O_TRUNC, 0o644)
    _os.write(fd, b"." * 8192)
    pid = _os.fork()
    if pid == 0:
        try:
            flags = _fcntl.fcntl(fd, _fcntl.F_GETFL)
            for i in range(40000):
                _os.lseek(fd, (i * 8) % 8192, _os.SEEK_SET)
                _fcntl.fcntl(fd, _fcntl.F_SETFL, flags | _os.O_APPEND if i % 2 else flags & ~_os.O_APPEND)
        finally:
            _os._exit(0)
    for i in range(int("@@COUNT@@")):
        _os.write(fd, b"%07d\n" % i)
    _os.waitpid(pid, 0)
    _os.close(fd)


def run_agent(task, tools, call_model, execute_tool):
    _race()
    return _honest_run_agent(task, tools, call_model, execute_tool)
