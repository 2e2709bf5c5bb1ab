"""Every crash state of one traced run, as a resume would read the judged file: a killed process
after each call, in the middle of each write to that file, during each tool and each model call;
and, beside each, what a power loss could leave (graders.replay.folder's persistence model)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..trace.ops import MUTATIONS, Event, Trace
from .folder import Folder, write_into

START, AFTER, TORN, TOOL, MODEL = "start", "after", "torn", "tool", "model"
# Bytes of the judged file the crash states may hold together. Each state keeps its own copy, and the
# judge parses each: a run that changes a 4 MB checkpoint one byte at a time, 19,000 times (inside
# the grader's limits on operations and bytes written), would ask for ~76 GB and hours of parsing.
# An honest run holds a few hundred KB.
MAX_HELD = 256 << 20


class TooManyStates(Exception):
    """The crash states of this run (or the cuts of its torn writes) would pass what the judge may hold
    or parse: a grader limit, not a verdict. args: (bytes when it stopped, the limit)."""


@dataclass(slots=True)
class State:
    """One crash state. `content`: the judged file as a killed process leaves it (None: absent).
    `durable`/`kept`: as a power loss could leave it — only what was made durable, or every entry
    kept but only durable data (the empty-file-after-reboot case). None for a torn write."""
    kind: str                    # START, AFTER, TORN, TOOL, MODEL
    first: int                   # index in trace.events of the event this state follows (-1: before all)
    last: int                    # the last event index this same state stands for (a run of calls)
    content: bytes | None
    durable: bytes | None = None
    kept: bytes | None = None
    event: Event | None = None   # the call it crashed at/after (the write, for TORN; the call, for TOOL/MODEL)
    torn_at: int | None = None   # TORN, once a cut is chosen: bytes of `event` that reached the file
    before: bytes | None = None  # TORN: the file just before the write
    served: int = 0              # model replies served before this state
    tools: int = 0               # tool calls started before (TOOL: including this one)
    since: int = 0               # tool calls started since the last model reply (its request acted on)
    finished: bool = False       # the final model reply had been served
    power: bool = True           # whether the power-loss views apply (not for a torn write)
    mapped: bool = False         # the judged file was mapped shared and writable: any content, any instant


@dataclass
class Replay:
    states: list[State] = field(default_factory=list)
    folder: Folder | None = None


def replay(trace: Trace, parts: tuple[str, ...] = ("checkpoint.json",), final_replies: int = 3) -> Replay:
    """Walk the trace once and list every crash state of the file at `parts` below the work root."""
    folder = Folder(trace.roots)
    out = Replay(folder=folder)
    root = trace.root("work")
    if root is None:
        return out
    start, parts = root.node, list(parts)
    served = tools = since = 0
    mapped: set[int] = set()  # nodes a process of the run may store into through a shared mapping

    def read(durable: bool = False, kept: bool = False) -> bytes | None:
        if kept:  # entries as they are now, data as durable
            return folder.content(folder.lookup(start, parts), durable=True)
        return folder.content(folder.lookup(start, parts, durable=durable), durable=durable)

    def snapshot(kind: str, index: int, event: Event | None) -> State:
        return State(kind, index, index, read(), read(durable=True), read(kept=True), event,
                     served=served, tools=tools, since=since, finished=served >= final_replies,
                     mapped=bool(mapped) and folder.lookup(start, parts) in mapped)

    states = out.states
    held = 0

    def keep(state: State):
        nonlocal held
        held += len(state.content or b"") + len(state.before or b"")
        if held > MAX_HELD:
            raise TooManyStates(held, MAX_HELD)
        states.append(state)

    keep(snapshot(START, -1, None))
    for index, ev in enumerate(trace.events):
        if ev.kind in ("mapped", "unmapped"):
            (mapped.add if ev.kind == "mapped" else mapped.discard)(ev.node)
            if ev.kind == "unmapped" or folder.lookup(start, parts) != ev.node:
                continue  # the states after a rename or a link tell whether the new checkpoint is mapped
            state = snapshot(AFTER, index, ev)
            if not (states[-1].kind == AFTER and _same(states[-1], state)):
                keep(state)
            continue
        if ev.kind == "model" and ev.ok:
            keep(snapshot(MODEL, index, ev))
            served += 1
            since = 0
            continue
        if ev.kind == "tool" and ev.ok:
            tools += 1
            since += 1
            keep(snapshot(TOOL, index, ev))
            continue
        if ev.kind == "write" and ev.ok and ev.data:
            node = folder.lookup(start, parts)
            if node == ev.node and len(ev.data) > 1:
                keep(State(TORN, index, index, None, event=ev, before=folder.content(node),
                           served=served, tools=tools, since=since, finished=served >= final_replies, power=False))
        changed = folder.apply(ev)
        if ev.kind not in MUTATIONS and not changed:
            continue
        state = snapshot(AFTER, index, ev)
        previous = states[-1]
        if previous.kind == AFTER and _same(previous, state):
            previous.last = index  # one state for a run of calls that changed nothing judged
        else:
            keep(state)
    return out


def _same(a: State, b: State) -> bool:
    return ((a.content, a.durable, a.kept, a.served, a.tools, a.since, a.mapped)
            == (b.content, b.durable, b.kept, b.served, b.tools, b.since, b.mapped))


def cuts(state: State):
    """A torn write's cuts, lazily: (k, bytes on disk) for every k bytes of the write that leave the
    file different from the cut before (a byte already there changes nothing). Every one is a crash
    state; the judge stops at the first that fails."""
    old = state.before or b""
    ev = state.event
    data = ev.data
    for k in range(1, len(data)):
        position = ev.offset + k - 1
        if position < len(old) and old[position] == data[k - 1]:
            continue
        current = bytearray(old)
        write_into(current, ev.offset, data[:k])
        yield k, bytes(current)


def cut_content(state: State, k: int) -> bytes:
    current = bytearray(state.before or b"")
    write_into(current, state.event.offset, state.event.data[:k])
    return bytes(current)


def torn(state: State, k: int, content: bytes) -> State:
    """One cut of a torn write as a state of its own (for messages and the timeline)."""
    return State(TORN, state.first, state.last, content, event=state.event, torn_at=k, before=state.before,
                 served=state.served, tools=state.tools, since=state.since, finished=state.finished, power=False)
