"""An in-memory model of the run's writable folders, changed event by event as the trace says the
real ones were, with what is durable beside what is current (the power-loss model's input)."""

from __future__ import annotations

import posixpath

from ..trace.ops import RENAME_EXCHANGE, Event, Root

FILE, DIR, SYMLINK = "file", "dir", "symlink"
MAX_LINKS = 40  # symlinks followed while resolving one path, as a resume's open() would (Linux: 40)


class Node:
    __slots__ = ("id", "kind", "data", "entries", "target", "version", "durable_data", "durable_entries")

    def __init__(self, node_id: int, kind: str, data: bytes = b"", target: str = "", durable: bool = False):
        self.id = node_id
        self.kind = kind
        self.data = bytearray(data)
        self.entries: dict[str, int] = {}
        self.target = target
        self.version = 0
        # What survives a power loss: the bytes as of the last fsync (nothing, for a new file), and a
        # directory's entries as of its last fsync (none of its new entries, for a new directory).
        self.durable_data = bytes(data) if durable else b""
        self.durable_entries: dict[str, int] = {}


class Folder:
    """The folders of one run. `apply(event)` replays one event; `lookup`/`content` read the result,
    now or as a power loss would leave it."""

    def __init__(self, roots: list[Root]):
        self.nodes: dict[int, Node] = {}
        self.roots: dict[str, int] = {}
        self.root_paths: list[tuple[str, int]] = []
        for root in roots:
            self.nodes[root.node] = Node(root.node, DIR, durable=True)
            self.roots[root.role] = root.node
            self.root_paths.append((posixpath.normpath(root.path), root.node))
            for entry in root.entries:
                self._initial(entry)
        for node in self.nodes.values():
            node.durable_entries = dict(node.entries)
        # Longest first: /home/aluno/projeto before /home/aluno.
        self.root_paths.sort(key=lambda item: -len(item[0]))
        self.root_path = {node: path for path, node in self.root_paths}
        # Reduced mode: the run's temp folder has a real name under the machine's /tmp, and the run sees
        # it as /tmp too (the supervisor maps every name there: graders/trace/kernel/target.py), so a link
        # to "/tmp/x" leads into it, as it does under bubblewrap, where that folder is /tmp itself. Only
        # for following links: the folders are listed once, by their real names.
        # The run's own /dev/shm likewise (a folder of the sandbox in reduced mode).
        seen_as = {"tmp": "/tmp", "shm": "/dev/shm"}
        self.aliases = [(seen_as[root.role], root.node) for root in roots
                        if root.role in seen_as and posixpath.normpath(root.path) != seen_as[root.role]]

    def _initial(self, entry: dict):
        node_id = int(entry["node"])
        if node_id not in self.nodes:  # a root inside another root (the work folder in the home) exists already
            self.nodes[node_id] = Node(node_id, entry.get("kind", FILE), entry.get("data", b"") or b"",
                                       entry.get("target", ""), durable=True)
        node = self.nodes[node_id]
        parent = self.nodes.get(int(entry["dir"]))
        if parent is not None and parent.kind == DIR:
            parent.entries[entry["name"]] = node.id

    # --- changing it ----------------------------------------------------------------------------

    def apply(self, ev: Event) -> bool:
        """Replay one event; True when something on disk (or what is durable) changed."""
        if not ev.ok:
            return False
        handler = getattr(self, "_" + ev.kind, None)
        return bool(handler(ev)) if handler is not None else False

    def _add_entry(self, dir_id: int, name: str, node_id: int) -> bool:
        parent = self.nodes.get(dir_id)
        if parent is None or parent.kind != DIR or not name:
            return False
        parent.entries[name] = node_id
        parent.version += 1
        return True

    def _remove_entry(self, dir_id: int, name: str) -> bool:
        parent = self.nodes.get(dir_id)
        if parent is None or name not in parent.entries:
            return False
        del parent.entries[name]
        parent.version += 1
        return True

    def _open(self, ev: Event) -> bool:
        if ev.created:
            self.nodes[ev.node] = Node(ev.node, FILE)
            self._add_entry(ev.dir, ev.name, ev.node)
            return True
        node = self.nodes.get(ev.node)
        if node is not None and ev.trunc and node.data:
            node.data.clear()
            node.version += 1
            return True
        return False

    def _write(self, ev: Event) -> bool:
        node = self.nodes.get(ev.node)
        if node is None or node.kind != FILE:
            return False
        write_into(node.data, ev.offset, ev.data)
        node.version += 1
        if ev.sync:
            node.durable_data = bytes(node.data)
        return True

    def _truncate(self, ev: Event) -> bool:
        node = self.nodes.get(ev.node)
        if node is None or node.kind != FILE:
            return False
        if ev.length < len(node.data):
            del node.data[ev.length:]
        else:
            node.data.extend(bytes(ev.length - len(node.data)))
        node.version += 1
        return True

    def _rename(self, ev: Event) -> bool:
        if ev.flags & RENAME_EXCHANGE:
            src, dst = self.nodes.get(ev.dir), self.nodes.get(ev.dir2)
            if src is None or dst is None:
                return False
            a, b = src.entries.get(ev.name), dst.entries.get(ev.name2)
            if a is None or b is None:
                return False
            src.entries[ev.name], dst.entries[ev.name2] = b, a
            src.version += 1
            dst.version += 1
            return True
        if (ev.dir, ev.name) == (ev.dir2, ev.name2):
            return False
        target = self.nodes.get(ev.dir2)
        if target is not None and target.kind == DIR and target.entries.get(ev.name2) == ev.node:
            return False  # two names of one file (hard links): rename(2) does nothing, both stay
        moved = self._remove_entry(ev.dir, ev.name)
        linked = self._add_entry(ev.dir2, ev.name2, ev.node) if ev.node in self.nodes or moved else False
        return moved or linked

    def _unlink(self, ev: Event) -> bool:
        return self._remove_entry(ev.dir, ev.name)

    _rmdir = _unlink

    def _mkdir(self, ev: Event) -> bool:
        self.nodes[ev.node] = Node(ev.node, DIR)
        return self._add_entry(ev.dir, ev.name, ev.node)

    def _link(self, ev: Event) -> bool:
        if ev.node not in self.nodes:
            return False
        return self._add_entry(ev.dir, ev.name, ev.node)

    def _symlink(self, ev: Event) -> bool:
        self.nodes[ev.node] = Node(ev.node, SYMLINK, target=ev.target)
        return self._add_entry(ev.dir, ev.name, ev.node)

    def _fsync(self, ev: Event) -> bool:
        node = self.nodes.get(ev.node)
        if node is None:
            return False
        if node.kind == DIR:
            node.durable_entries = dict(node.entries)
        elif node.kind == FILE:
            node.durable_data = bytes(node.data)
        return True

    def _sync(self, ev: Event) -> bool:
        for node in self.nodes.values():
            node.durable_data = bytes(node.data)
            node.durable_entries = dict(node.entries)
        return True

    # --- reading it -------------------------------------------------------------------------------

    def locate(self, path: str) -> tuple[int, list[str]] | None:
        """(root node, components below it) for an absolute path under one of the roots."""
        path = posixpath.normpath(path)
        for root_path, node in self.root_paths + self.aliases:
            if path == root_path:
                return node, []
            if path.startswith(root_path.rstrip("/") + "/"):
                return node, [p for p in path[len(root_path):].split("/") if p]
        return None

    def lookup(self, start: int, parts: list[str], durable: bool = False, follow: bool = True) -> int | None:
        """The node at `parts` below directory `start`, following symlinks as open() would."""
        links = 0
        stack = [start]  # the directories walked through, for ".."
        pending = list(parts)
        while pending:
            part = pending.pop(0)
            node = self.nodes.get(stack[-1])
            if node is None or node.kind != DIR:
                return None
            if part in ("", "."):
                continue
            if part == "..":
                if len(stack) > 1:
                    stack.pop()
                    continue
                # Above a root: the folder that holds it, as the kernel climbs (the work folder's
                # parent is the home root under bubblewrap). Outside every root lies nothing the run
                # wrote: a resume following the link there finds no checkpoint of this run.
                here = self.root_path.get(stack[0])
                if here is None or here == "/":
                    continue
                located = self.locate(posixpath.dirname(here))
                if located is None:
                    return None
                stack, pending = [located[0]], located[1] + pending
                continue
            entries = node.durable_entries if durable else node.entries
            child_id = entries.get(part)
            child = self.nodes.get(child_id) if child_id is not None else None
            if child is None:
                return None
            if child.kind == SYMLINK and (pending or follow):
                links += 1
                if links > MAX_LINKS:
                    return None
                if child.target.startswith("/"):
                    located = self.locate(child.target)
                    if located is None:
                        return None
                    stack, more = [located[0]], located[1]
                    pending = more + pending
                else:
                    pending = [p for p in child.target.split("/") if p] + pending
                continue
            stack.append(child_id)
        return stack[-1]

    def content(self, node_id: int | None, durable: bool = False) -> bytes | None:
        """A regular file's bytes (None when absent or not a regular file)."""
        node = self.nodes.get(node_id) if node_id is not None else None
        if node is None or node.kind != FILE:
            return None
        return node.durable_data if durable else bytes(node.data)

    def files(self) -> dict[str, bytes | None]:
        """Every entry under the roots by absolute path: a file's bytes, None for anything else."""
        found: dict[str, bytes | None] = {}
        seen = set()
        for root_path, root in self.root_paths:
            pending = [(root_path.rstrip("/") or "/", root)]
            while pending:
                path, node_id = pending.pop()
                if node_id in seen:
                    continue
                seen.add(node_id)
                for name, child_id in sorted(self.nodes[node_id].entries.items()):
                    child = self.nodes.get(child_id)
                    full = f"{path}/{name}" if path != "/" else f"/{name}"
                    if child is None:
                        continue
                    if child.kind == DIR:
                        pending.append((full, child_id))
                    else:
                        found[full] = bytes(child.data) if child.kind == FILE else None
        return found


def write_into(data: bytearray, offset: int, chunk: bytes):
    """Write `chunk` at `offset` as the kernel would: holes read as zeros."""
    if offset > len(data):
        data.extend(bytes(offset - len(data)))
    data[offset: offset + len(chunk)] = chunk
