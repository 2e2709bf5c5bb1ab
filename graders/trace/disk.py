"""A run's folders read back after it ended (the trace's `final`), safely: the folder was written by
student code, so it is read without following links, opening nothing but regular files, with caps."""

from __future__ import annotations

import os
import stat

MAX_ENTRIES = 500
MAX_FILE = 4 * 1024 * 1024
MAX_DEPTH = 12
NOT_REGULAR = None  # a symlink, FIFO, device... named in the tree, never opened


def read_tree(root: str) -> dict[str, bytes | None]:
    """Every file under root by path relative to it: its bytes, or None when it is not a regular file."""
    found: dict[str, bytes | None] = {}
    pending = [("", 0)]
    while pending and len(found) < MAX_ENTRIES:
        folder, depth = pending.pop()
        try:
            with os.scandir(os.path.join(root, folder)) as entries:
                names = sorted((e.name, e) for e in entries)
        except OSError:
            continue
        for name, entry in names:
            relative = os.path.join(folder, name) if folder else name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth < MAX_DEPTH:
                        pending.append((relative, depth + 1))
                    continue
                found[relative] = _read_regular(os.path.join(root, relative))
            except OSError:
                found[relative] = NOT_REGULAR
            if len(found) >= MAX_ENTRIES:
                break
    return found


def _read_regular(path: str) -> bytes | None:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return NOT_REGULAR
        chunks, size = [], 0
        while size <= MAX_FILE:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
        return data if len(data) <= MAX_FILE else NOT_REGULAR
    finally:
        os.close(fd)
