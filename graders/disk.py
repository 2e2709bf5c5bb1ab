"""What a resumed process would find on disk: a run's folder read safely, and described for messages.

The folder was written by student code, so it is read without following links, without
opening anything but regular files, and with caps on depth, count and size.
"""

from __future__ import annotations

import os
import stat

CHECKPOINT_NAME = "checkpoint.json"
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


def checkpoint_paths(tree: dict) -> list[str]:
    return sorted(p for p in tree if os.path.basename(p) == CHECKPOINT_NAME)


def disk_view(crash: str, path: str, content: bytes | None) -> dict:
    """The page's disk view of one crash: what the file held, if it existed."""
    view = {"crash": crash, "path": path, "exists": content is not None}
    if content is not None:
        view["bytes"] = len(content)
        view["content"] = content[:4000].decode("utf-8", "replace")
    return view


def left_on_disk(content: bytes) -> str:
    """`ficou com N bytes, terminando em «…»`: the end of a file says where a write was cut."""
    if not content:
        return "ficou vazio (0 bytes)"
    text = content.decode("utf-8", "replace").replace("\n", " ")
    tail = text[-60:] if len(text) > 60 else text
    return f"ficou com {len(content)} bytes, terminando em «…{tail}»"
