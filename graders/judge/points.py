"""The crash states of one run as the student sees them: numbered once (messages and the timeline cite
the same numbers), grouped by part of the loop (A1, ferramenta 1, B1…) and described in Portuguese."""

from __future__ import annotations

import posixpath

from ..replay.states import MODEL, START, TOOL, TORN, State, TooManyStates, cut_content, cuts, torn
from ..trace.ops import FILE_CALLS, Trace
from .reading import complete_key, plural

ORDINAL = {1: "1ª", 2: "2ª", 3: "3ª", 4: "4ª"}
# Bytes of torn-write cuts the judge may build and parse for one file (~6 s of parsing here): a cut
# that parses to a checkpoint seen before does not end the walk, so a write that only turns spaces
# into newlines in a 4 MB checkpoint has 4 million cuts of 4 MB. Writing a padded checkpoint in 256-byte
# pieces costs ~1 GB (tests/adversarial/attacks/unhooked_thread.py); an honest run, nothing.
MAX_CUT_BYTES = 4 << 30


class Point:
    """A crash state as the student sees it: numbered, grouped (A1, ferramenta 1, B1…) and described."""

    __slots__ = ("n", "state", "op", "group", "where")

    def __init__(self, state: State, op: int, group: str, where: str):
        self.n = 0
        self.state = state
        self.op = op
        self.group = group
        self.where = where


class Paths:
    """Paths as the student thinks of them: relative to the work folder, or named by their root."""

    def __init__(self, trace: Trace):
        self.roots = sorted(((posixpath.normpath(r.path), r.role) for r in trace.roots), key=lambda x: -len(x[0]))

    def show(self, path: str) -> str:
        path = posixpath.normpath(path) if path else path
        for root, role in self.roots:
            if path.startswith(root.rstrip("/") + "/"):
                rest = path[len(root.rstrip("/")) + 1:]
                if role == "work":
                    return rest
                if role == "tmp":
                    return f"{rest}, no diretório temporário do sistema"
                return f"~/{rest}" if role == "home" else path
        return path or "?"

    def name(self, path: str) -> str:
        """A file's name in a message: its path in the work folder (checkpoints/checkpoint.json), else its
        base name."""
        shown = self.show(path)
        if shown and shown != path and not shown.startswith("~") and ", no diretório" not in shown:
            return shown
        return posixpath.basename(path) or path


class CrashPoints:
    """`points`: every crash state of `states` (a torn write: its first cut, the first that fails, the
    middle and the last), numbered from 1; `total`, `total_ops`; `label(point)`, `what(event)`."""

    def __init__(self, trace: Trace, states: list[State], final_replies: int, shown: str):
        self.trace = trace
        self.final_replies = final_replies
        self.shown = shown
        self.paths = Paths(trace)
        self.names = names(trace.events)
        self.folders = folders(trace, self.paths)
        self.points: list[Point] = []
        self.cut_bytes = 0  # bytes of torn-write cuts built and parsed so far (bounded like the states)
        self._number(states)

    def _number(self, states: list[State]):
        """One list of crash points, numbered once: messages and the timeline cite the same numbers."""
        events = self.trace.events
        op_of, count = {}, 0
        for i, e in enumerate(events):
            if e.kind in FILE_CALLS:
                count += 1
                op_of[i] = count
        self.total_ops = count
        for state in states:
            if state.kind == TORN:
                for k, content in self._torn_representatives(state):
                    self._add(torn(state, k, content), op_of.get(state.first, 0))
            else:
                self._add(state, op_of.get(state.first, 0))
        for n, point in enumerate(self.points, start=1):
            point.n = n
        self.total = len(self.points)

    def _add(self, state: State, op: int):
        group, where = self._group(state), self._where(state)
        if group == "fim" and state.kind not in (START, TOOL, MODEL):
            # A write after the task ended (a final save, an archive, or a process still at work after
            # run_agent returned): the moment is named by what the trusted side saw, the final reply.
            where += ", já depois da resposta final do modelo"
        self.points.append(Point(state, op, group, where))

    def _torn_representatives(self, state: State):
        """Every cut of the write is judged here, in order, up to the first that leaves a file no resume
        could load; the timeline keeps that one, the first, the middle and the last."""
        earlier = {complete_key(p.state.content) for p in self.points if p.state.kind != TORN}
        earlier.discard(None)
        first = bad = None
        for k, content in cuts(state):
            # A cut that parses to a checkpoint seen before does not stop the walk: a write that only
            # changes whitespace of a 4 MB checkpoint would have 4 million cuts of 4 MB to build and parse.
            self.cut_bytes += len(content)
            if self.cut_bytes > MAX_CUT_BYTES:
                raise TooManyStates(self.cut_bytes, MAX_CUT_BYTES)
            first = first or (k, content)
            if complete_key(content) not in earlier:
                bad = (k, content)
                break
        if first is None:
            return []  # the write put back the bytes that were there: nothing to tear
        keep = dict([first] + ([bad] if bad else []))
        size = len(state.event.data)
        for k in (size // 2, size - 1):
            if k > first[0] and k not in keep:
                keep[k] = cut_content(state, k)
        return sorted(keep.items())

    def _group(self, state: State) -> str:
        """The part of the loop: início, A1 (the model asked for tool 1, not run yet), ferramenta 1,
        B1 (it ran, before the next model call), modelo 2 (during that call)…, fim."""
        if state.kind == TOOL:
            return f"ferramenta {state.tools}"
        if state.kind == MODEL:
            return f"modelo {state.served + 1}"
        if state.served == 0:
            return "início"
        if state.served >= self.final_replies:
            return "fim"
        if state.tools < state.served:
            return f"A{state.served}"
        return f"B{state.tools}"

    def _where(self, state: State) -> str:
        if state.kind == START:
            return "antes de qualquer operação de arquivo"
        if state.kind == TOOL:
            return f"durante execute_tool('{(state.event.payload or {}).get('name')}')"
        if state.kind == MODEL:
            return f"durante a {ORDINAL.get(state.served + 1, f'{state.served + 1}ª')} chamada ao modelo"
        if state.kind == TORN:
            ev = state.event
            path = ev.path or self.names.get(id(ev), "")
            return (f"no meio da escrita de {plural(len(ev.data), 'byte', 'bytes')} em {self.paths.name(path) or self.shown}, "
                    f"depois de {plural(state.torn_at, 'byte', 'bytes')}")
        first = self.trace.events[state.first]
        text = f"logo depois {self.what(first)}"
        if state.last != state.first:
            last = self.trace.events[state.last]
            text += f" (e até {_article(self.what(last))})"
        return text

    def what(self, ev) -> str:
        """An event as a noun phrase: “da escrita de 120 bytes em x”."""
        if ev.kind == "fsync" and ev.node in self.folders:
            return f"do os.fsync {self.folders[ev.node]}"  # a folder opened with os.open: no path of its own
        path = ev.path or self.names.get(id(ev), "")
        name = self.paths.name(path) if path else "um arquivo"
        return {
            "open": f"da abertura de {name} para escrita" + (" (criado agora)" if ev.created else "")
                    + (", que o truncou" if ev.trunc else ""),
            "write": f"da escrita de {plural(len(ev.data), 'byte', 'bytes')} em {name}",
            "truncate": f"do truncamento de {name} para {plural(ev.length, 'byte', 'bytes')}",
            "rename": f"da renomeação de {name} para {self.paths.name(ev.path2)}",
            "unlink": f"da remoção de {name}",
            "rmdir": f"da remoção do diretório {name}",
            "mkdir": f"da criação do diretório {name}",
            "link": f"do link {name}",
            "symlink": f"do link simbólico {name}",
            "fsync": f"do os.fsync de {name}",
            "sync": "do os.sync",
            "mapped": f"do mmap compartilhado de {name}",
        }.get(ev.kind, f"da operação {ev.kind} em {name}")

    def label(self, point: Point) -> str:
        return f"Queda {point.n} de {self.total}, {point.where}"


def folders(trace: Trace, paths: Paths) -> dict[int, str]:
    """The folders a run can fsync, by node, as the student calls them (“do diretório do projeto”)."""
    roles = {"work": "do diretório do projeto", "tmp": "do diretório temporário", "home": "do diretório pessoal"}
    found = {r.node: roles.get(r.role, f"do diretório {r.path}") for r in trace.roots}
    for root in trace.roots:
        for entry in root.entries:
            if entry.get("kind") == "dir" and entry.get("name"):
                found.setdefault(entry.get("node"), f"do diretório {entry['name']}")
    for ev in trace.events:
        if ev.ok and ev.kind == "mkdir" and ev.path:
            found.setdefault(ev.node, f"do diretório {paths.show(ev.path)}")
    return found


def names(events) -> dict[int, str]:
    """The path each descriptor-based event acted on (by event identity), from the node's last name:
    a tap may name only the calls that take a path."""
    latest: dict[int, str] = {}
    found: dict[int, str] = {}
    for ev in events:
        if not ev.ok:
            continue
        if ev.kind in ("open", "mkdir", "symlink", "link") and ev.path:
            latest[ev.node] = ev.path
        elif ev.kind == "rename" and ev.path2:
            latest[ev.node] = ev.path2
        elif ev.kind in ("write", "truncate", "fsync", "mapped") and not ev.path and ev.node in latest:
            found[id(ev)] = latest[ev.node]
    return found


def _article(phrase: str) -> str:
    """“da escrita…” → “a escrita…”, “do fechamento…” → “o fechamento…”."""
    return phrase[1:] if phrase.startswith(("da ", "do ")) else phrase
