"""The disk as a run's reported operations say it should be: replayed step by step by the trusted side.

Comparing it with the real folder after the process died is how a change that no reported
operation explains (a dup-ed descriptor, mmap, os.pwritev, a thread...) is caught.
"""

from __future__ import annotations

from .controller import Op

ABSENT = object()


class ShadowDisk:
    def __init__(self):
        self.files: dict[str, bytearray] = {}

    def get(self, path: str) -> bytes | None:
        content = self.files.get(path)
        return None if content is None else bytes(content)

    def apply(self, op: Op, torn_at: int | None = None):
        if op.failed:
            return
        files, path = self.files, op.path
        if op.kind == "open":
            if op.trunc or (op.create and path not in files):
                files[path] = bytearray()
        elif op.kind == "write":
            data = op.data if torn_at is None else op.data[:torn_at]
            content = files.setdefault(path, bytearray())
            if op.offset > len(content):
                content.extend(bytes(op.offset - len(content)))
            content[op.offset: op.offset + len(data)] = data
        elif op.kind == "truncate":
            content = files.get(path)
            if content is not None:
                if op.length < len(content):
                    del content[op.length:]
                else:
                    content.extend(bytes(op.length - len(content)))
        elif op.kind in ("replace", "rename"):
            if path in files and op.target != path:
                files[op.target] = files.pop(path)
        elif op.kind == "remove":
            files.pop(path, None)

    def changes(self, op: Op, path: str) -> bool:
        """Can this operation change what `path` holds?"""
        if op.failed:
            return False
        if op.kind in ("open", "write", "truncate", "remove"):
            return op.path == path
        if op.kind in ("replace", "rename"):
            return path in (op.path, op.target)
        return False


def replay(ops: list[Op], torn_at: int | None = None) -> ShadowDisk:
    """The disk after `ops`; the last one torn after `torn_at` bytes when given."""
    disk = ShadowDisk()
    for n, op in enumerate(ops):
        disk.apply(op, torn_at if n == len(ops) - 1 else None)
    return disk


def history(ops: list[Op], path: str) -> list[bytes | None]:
    """What `path` held before each operation (index i: before op i+1), then after the last."""
    disk = ShadowDisk()
    states = [disk.get(path)]
    for op in ops:
        disk.apply(op)
        states.append(disk.get(path) if disk.changes(op, path) else states[-1])
    return states


def unexplained(ops: list[Op], torn_at: int | None, real: dict, names) -> list[str]:
    """Paths (among `names`) whose real content is not what the reported operations imply."""
    disk = replay(ops, torn_at)
    paths = {p for p in disk.files if names(p)} | {p for p in real if names(p)}
    return sorted(p for p in paths if disk.get(p) != real.get(p, None) or (p in real) != (p in disk.files))
