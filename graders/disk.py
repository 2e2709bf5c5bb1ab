"""What a resumed process would find on disk: the checkpoint files of a folder, described for messages."""

from __future__ import annotations

import os

CHECKPOINT_NAME = "checkpoint.json"


def checkpoint_files(workdir: str) -> dict[str, bytes]:
    """Every checkpoint.json under workdir, by path relative to it."""
    found = {}
    for folder, _, names in os.walk(workdir):
        if CHECKPOINT_NAME in names:
            path = os.path.join(folder, CHECKPOINT_NAME)
            with open(path, "rb") as f:
                found[os.path.relpath(path, workdir)] = f.read()
    return found


def main_checkpoint(files: dict[str, bytes]) -> str | None:
    """The one a resume reads: ./checkpoint.json, else the first found (e.g. checkpoints/checkpoint.json)."""
    if CHECKPOINT_NAME in files:
        return CHECKPOINT_NAME
    return min(files, default=None)


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
