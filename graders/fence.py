"""Reduced isolation (no bubblewrap): an audit hook that keeps a run's code inside its folder.

Python cannot really isolate code inside one interpreter: this fence stops the ordinary
ways out (processes, network, writes elsewhere), not a determined attacker. With bwrap,
the operating system does this job and the fence is not installed.
"""

from __future__ import annotations

import os
import sys

# Events that have no business in a checkpoint exercise.
BLOCKED_EVENTS = {
    "os.system", "os.exec", "os.spawn", "os.fork", "os.forkpty", "os.posix_spawn", "subprocess.Popen",
    "os.kill", "os.killpg", "signal.pthread_kill", "socket.__new__", "socket.connect", "socket.bind",
    "socket.getaddrinfo", "ctypes.dlopen", "ctypes.dlsym", "ctypes.cdata", "ctypes.call_function",
    "os.startfile", "webbrowser.open", "pty.spawn",
}
# Events that change the file system, with the positions of their path arguments.
PATH_EVENTS = {
    "os.rename": (0, 1), "os.remove": (0,), "os.rmdir": (0,), "os.mkdir": (0,), "os.truncate": (0,),
    "os.link": (0, 1), "os.symlink": (0, 1), "os.chmod": (0,), "os.chown": (0,), "os.utime": (0,),
    "shutil.rmtree": (0,), "shutil.copyfile": (1,), "shutil.copytree": (1,), "shutil.move": (1,),
    "os.chflags": (0,), "os.setxattr": (0,), "os.removexattr": (0,),
}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _inside(path, root: str) -> bool:
    if isinstance(path, int) or path is None:
        return True  # a file descriptor: the open itself was checked
    try:
        full = os.path.realpath(os.fsdecode(path))
    except (TypeError, ValueError):
        return False
    return full == root or full.startswith(root + os.sep)


def install_fence(root: str):
    root = os.path.realpath(root)

    def fence(event, args):
        if event in BLOCKED_EVENTS:
            raise PermissionError(f"bloqueado pelo corretor: {event}")
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            writing = any(c in mode for c in "wax+") if isinstance(mode, str) else bool((flags or 0) & WRITE_FLAGS)
            if writing and not _inside(path, root):
                raise PermissionError(f"bloqueado pelo corretor: escrita fora da pasta da correção ({path})")
        elif event in PATH_EVENTS:
            for index in PATH_EVENTS[event]:
                if index < len(args) and not _inside(args[index], root):
                    raise PermissionError(f"bloqueado pelo corretor: {event} fora da pasta da correção")

    sys.addaudithook(fence)
