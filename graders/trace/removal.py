"""Removing a folder a run wrote, whatever it left there: without recursion (a run can nest folders
deeper than Python's recursion limit, which crashed shutil.rmtree), never following a link, and
opening up folders it left without permissions. Deeper folders are moved up to the top one and
emptied from there, so at most two folders are open at a time."""

from __future__ import annotations

import itertools
import os
import stat

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_tree(path: str):
    """Remove `path` and everything in it; a link (or file) there is removed itself. Best effort:
    what cannot be removed stays, and no error is raised."""
    try:
        st = os.lstat(path)
    except OSError:
        return
    try:
        if stat.S_ISDIR(st.st_mode):
            empty_folder(path)
            os.rmdir(path)
        else:
            os.unlink(path)
    except OSError:
        pass


def empty_folder(path: str, keep: tuple[str, ...] = ()):
    """Remove everything inside the folder `path` but the entries named in `keep`."""
    top = os.open(path, _FOLDER)
    try:
        names = itertools.count()
        entries = sorted(set(os.listdir(top)) - set(keep))
        while entries:
            for name in entries:
                _remove(top, name, names)
            before, entries = entries, sorted(set(os.listdir(top)) - set(keep))
            if entries == before:
                return  # a pass that changed nothing: what is left cannot be removed
    finally:
        os.close(top)


def _remove(top: int, name: str, names):
    """Remove one entry of the top folder; its subfolders are moved up into the top folder first."""
    try:
        st = os.lstat(name, dir_fd=top)
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(name, dir_fd=top)
            return
        try:
            fd = os.open(name, _FOLDER, dir_fd=top)
        except PermissionError:
            os.chmod(name, 0o700, dir_fd=top)  # a real folder (lstat above), left closed by the run
            fd = os.open(name, _FOLDER, dir_fd=top)
        try:
            os.fchmod(fd, 0o700)
            for inner in os.listdir(fd):
                if stat.S_ISDIR(os.lstat(inner, dir_fd=fd).st_mode):
                    os.rename(inner, _free_name(top, names), src_dir_fd=fd, dst_dir_fd=top)
                else:
                    os.unlink(inner, dir_fd=fd)
        finally:
            os.close(fd)
        os.rmdir(name, dir_fd=top)
    except OSError:
        pass


def _free_name(top: int, names) -> str:
    while True:
        name = f".removendo-{next(names)}"
        try:
            os.lstat(name, dir_fd=top)
        except FileNotFoundError:
            return name
