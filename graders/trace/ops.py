"""The trace of one run: what the file system was asked to do (seen below Python), the model and
tool calls served, and how the process ended. Both taps produce it; graders.replay reads it.

A trace is plain data so that it can cross a socket (CLI: from the sandbox to the judge) or the
Pyodide/JavaScript boundary (browser). Nodes are the tap's names for files and directories: an
integer per inode, never reused within one run, so a rename or a write through an old descriptor
is followed by identity, not by path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields

# Events that may change what is on disk (a crash state follows each successful one).
MUTATIONS = frozenset({"open", "write", "truncate", "rename", "unlink", "rmdir", "mkdir", "link", "symlink"})
# Events that change nothing on disk but matter to the models and the judge.
# "mapped"/"unmapped": from when to when a file could change through a shared writable mapping, with
# no call in between (the kernel tap; graders/trace/kernel/mappings.py).
MARKS = frozenset({"fsync", "sync", "model", "tool", "returned", "refused", "mapped", "unmapped"})
KINDS = MUTATIONS | MARKS
# The calls a student's code makes on files (numbered as "operações" in messages and the demo).
FILE_CALLS = MUTATIONS | frozenset({"fsync", "sync"})

RENAME_NOREPLACE, RENAME_EXCHANGE = 1, 2
FSYNC_DATA_ONLY = 1

# How a run ended, as the trusted side saw it (never as the student's process said it).
ENDS = frozenset({
    "exit",      # the process ended by itself; `code` is its exit status
    "signal",    # killed by a signal it did not get from us (`code`: the signal number)
    "timeout",   # still running at the time limit: killed
    "flood",     # printed far too much: killed
    "runaway",   # past a grader limit (operations, bytes written, model calls): killed
    "protocol",  # garbled requests on the model channel: killed
    "refused",   # a call the tap cannot follow (a descriptor swapped under an mmap): killed
    "broken",    # the sandbox or the tap itself failed (not the student's fault)
})

MAX_EVENTS = 20_000
MAX_DATA = 16 * 1024 * 1024  # bytes written by one run


@dataclass(slots=True)
class Event:
    kind: str
    ok: bool = True
    errno: str = ""          # e.g. "EXDEV" when ok is False; a failed call changed nothing
    node: int = 0            # the file or directory acted on
    dir: int = 0             # the directory holding `name`
    name: str = ""
    dir2: int = 0            # rename: destination directory
    name2: str = ""          # rename: destination name; link: unused
    replaced: int = 0        # rename: the node that was at the destination (0: none)
    path: str = ""           # absolute path as the process named it (messages only)
    path2: str = ""          # rename destination (messages only)
    created: bool = False    # open: the entry did not exist and was created
    trunc: bool = False      # open: an existing file was emptied (O_TRUNC)
    offset: int = 0          # write
    data: bytes = b""        # write: the bytes that reached the file
    sync: bool = False       # write through O_SYNC/O_DSYNC: durable at once
    length: int = 0          # truncate: the new size
    flags: int = 0           # rename: RENAME_*; fsync: FSYNC_DATA_ONLY
    target: str = ""         # symlink: what it points to
    kind2: str = ""          # the kind of node created: "file", "dir", "symlink"
    call: int = 0            # model/tool/returned: 1-based index among its kind
    payload: object = None   # model: {"messages", "tools"}; tool: {"name", "input"}; refused: {"call", "message"}


@dataclass(slots=True)
class Root:
    """A folder the run may write to, as it was when the run started (normally empty)."""
    role: str                # "work" (the current folder when run_agent is called), "tmp", "home"
    node: int
    path: str                # absolute path as the process sees it
    # What it held at the start: [{"node", "dir", "name", "kind": "file"|"dir"|"symlink", "data"|"target"}]
    entries: list = field(default_factory=list)


@dataclass(slots=True)
class Trace:
    roots: list[Root]
    events: list[Event] = field(default_factory=list)
    end: str = "exit"
    code: int = 0            # exit status or signal number
    output: str = ""         # stdout and stderr, capped
    # The runner's own account of a failure (exception, sys.exit, missing function): untrusted,
    # used only to word a message, never to pass anything.
    report: dict = field(default_factory=dict)
    # The real files under the roots after the run, by absolute path (None: not a regular file);
    # None when the tap could not read them (the judge then skips the final comparison).
    final: dict | None = None
    limits: dict = field(default_factory=dict)  # grader limits that stopped the run, for messages
    # Signs of the grader the run opened for reading once its code started ([{"path", "count"}], the
    # kernel tap only): a reading aid for the report, never read by a judge.
    probes: list = field(default_factory=list)

    def root(self, role: str) -> Root | None:
        return next((r for r in self.roots if r.role == role), None)

    @property
    def ended_cleanly(self) -> bool:
        return self.end == "exit" and self.code == 0


# --- crossing a boundary ------------------------------------------------------------------------

_EVENT_FIELDS = {f.name: f for f in fields(Event)}
_DEFAULTS = {f.name: f.default for f in fields(Event)}


def event_to_dict(event: Event) -> dict:
    """Only the fields that differ from their defaults; bytes as latin-1 text (JSON-safe)."""
    out = {}
    for name, default in _DEFAULTS.items():
        value = getattr(event, name)
        if value != default or name == "kind":
            out[name] = value.decode("latin-1") if isinstance(value, bytes) else value
    return out


def event_from_dict(raw: dict) -> Event:
    if not isinstance(raw, dict) or raw.get("kind") not in KINDS:
        raise ValueError("evento inválido")
    values = {}
    for name, value in raw.items():
        if name not in _EVENT_FIELDS:
            raise ValueError(f"campo desconhecido: {name}")
        default = _DEFAULTS[name]
        if name == "data":
            if isinstance(value, str):
                value = value.encode("latin-1")
            elif isinstance(value, (bytes, bytearray, memoryview)):
                value = bytes(value)
            else:
                raise ValueError("data")
        elif name == "payload":
            pass
        elif isinstance(default, bool):
            value = bool(value)
        elif isinstance(default, int):
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(name)
        elif isinstance(default, str) and not isinstance(value, str):
            raise ValueError(name)
        values[name] = value
    return Event(**values)


def to_json(trace: Trace) -> str:
    return json.dumps({
        "roots": [{"role": r.role, "node": r.node, "path": r.path,
                   "entries": [_entry_out(e) for e in r.entries]} for r in trace.roots],
        "events": [event_to_dict(e) for e in trace.events],
        "end": trace.end, "code": trace.code, "output": trace.output, "report": trace.report,
        "final": None if trace.final is None else {
            p: (None if c is None else c.decode("latin-1")) for p, c in trace.final.items()},
        "limits": trace.limits, "probes": trace.probes,
    }, ensure_ascii=False)


def from_json(text: str) -> Trace:
    raw = json.loads(text)
    return from_dict(raw)


def from_dict(raw: dict) -> Trace:
    """A trace from plain data (JSON, or the browser tap's objects), checked field by field."""
    if not isinstance(raw, dict):
        raise ValueError("rastro inválido")
    roots = []
    for r in raw.get("roots") or []:
        roots.append(Root(str(r["role"]), int(r["node"]), str(r["path"]),
                          [_entry_in(e) for e in r.get("entries") or []]))
    events = [e if isinstance(e, Event) else event_from_dict(e) for e in raw.get("events") or []]
    end = raw.get("end", "broken")
    if end not in ENDS:
        raise ValueError("fim inválido")
    final = raw.get("final")
    if final is not None:
        final = {str(p): (None if c is None else (c.encode("latin-1") if isinstance(c, str) else bytes(c)))
                 for p, c in final.items()}
    report = raw.get("report")
    probes = [{"path": p["path"], "count": p["count"]} for p in raw.get("probes") or []
              if isinstance(p, dict) and isinstance(p.get("path"), str) and type(p.get("count")) is int]
    return Trace(roots, events, end, int(raw.get("code") or 0), str(raw.get("output") or ""),
                 report if isinstance(report, dict) else {}, final,
                 raw.get("limits") if isinstance(raw.get("limits"), dict) else {}, probes)


def _entry_out(entry: dict) -> dict:
    out = dict(entry)
    if isinstance(out.get("data"), bytes):
        out["data"] = out["data"].decode("latin-1")
    return out


def _entry_in(entry: dict) -> dict:
    out = dict(entry)
    if isinstance(out.get("data"), str):
        out["data"] = out["data"].encode("latin-1")
    return out
