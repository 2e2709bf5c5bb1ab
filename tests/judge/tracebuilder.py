"""Hand-built traces for the judge's rule tests: the events a tap would record for a scripted agent
loop, with the save strategy, the save points and the token count chosen by each test."""

from __future__ import annotations

import copy
import json

from graders.fake_agent import TASK, script
from graders.trace.ops import Event, Root, Trace

WORK, TMP = "/home/aluno/projeto", "/tmp"


class Builder:
    def __init__(self):
        self.roots = [Root("work", 1, WORK), Root("tmp", 2, TMP)]
        self.dirs = {WORK: 1, TMP: 2}
        self.entries: dict[str, int] = {}  # absolute path -> node
        self.sizes: dict[int, int] = {}
        self.next = 3
        self.events: list[Event] = []
        self.models = self.tools = 0

    def _split(self, path: str) -> tuple[int, str, str]:
        full = path if path.startswith("/") else f"{WORK}/{path}"
        folder, _, name = full.rpartition("/")
        return self.dirs[folder], name, full

    def open(self, path: str, trunc: bool = True) -> int:
        d, name, full = self._split(path)
        created = full not in self.entries
        if created:
            self.entries[full] = self.next
            self.sizes[self.next] = 0
            self.next += 1
        node = self.entries[full]
        emptied = trunc and not created and self.sizes[node] > 0
        if trunc:
            self.sizes[node] = 0
        self.events.append(Event("open", node=node, dir=d, name=name, created=created, trunc=emptied, path=full,
                                 kind2="file"))
        return node

    def write(self, node: int, data: bytes, offset: int | None = None):
        offset = self.sizes[node] if offset is None else offset
        self.events.append(Event("write", node=node, offset=offset, data=data, path=self._path(node)))
        self.sizes[node] = max(self.sizes[node], offset + len(data))

    def _path(self, node: int) -> str:
        return next((p for p, n in self.entries.items() if n == node), "")

    def rename(self, src: str, dst: str, ok: bool = True, errno: str = ""):
        d1, n1, f1 = self._split(src)
        d2, n2, f2 = self._split(dst)
        node = self.entries[f1]
        if not ok:
            self.events.append(Event("rename", ok=False, errno=errno, node=node, dir=d1, name=n1, dir2=d2, name2=n2, path=f1, path2=f2))
            return
        replaced = self.entries.get(f2, 0)
        del self.entries[f1]
        self.entries[f2] = node
        self.events.append(Event("rename", node=node, dir=d1, name=n1, dir2=d2, name2=n2, replaced=replaced, path=f1, path2=f2))

    def unlink(self, path: str):
        d, name, full = self._split(path)
        node = self.entries.pop(full)
        self.events.append(Event("unlink", node=node, dir=d, name=name, path=full))

    def mkdir(self, path: str):
        d, name, full = self._split(path)
        self.dirs[full] = self.next
        self.events.append(Event("mkdir", node=self.next, dir=d, name=name, path=full, kind2="dir"))
        self.next += 1

    def fsync(self, node: int):
        self.events.append(Event("fsync", node=node, path=self._path(node)))

    def fsync_dir(self, folder: str = WORK):
        self.events.append(Event("fsync", node=self.dirs[folder], path=folder))

    def model(self, messages):
        self.models += 1
        self.events.append(Event("model", call=self.models, payload={"messages": copy.deepcopy(messages), "tools": []}))

    def tool(self, name, input):
        self.tools += 1
        self.events.append(Event("tool", call=self.tools, payload={"name": name, "input": copy.deepcopy(input)}))

    def trace(self, end: str = "exit", code: int = 0, final: bool = True, report: dict | None = None) -> Trace:
        trace = Trace(self.roots, self.events, end, code,
                      report={"kind": "ok", "phase": "call"} if report is None else report)
        if final:
            from graders.replay.folder import Folder

            folder = Folder(self.roots)
            for ev in self.events:
                folder.apply(ev)
            trace.final = folder.files()
        return trace

    # --- save strategies --------------------------------------------------------------------

    def save_atomic(self, state: dict, fsync: bool = False, dirsync: bool = False, tmp: str = "checkpoint.json.tmp"):
        node = self.open(tmp)
        self.write(node, json.dumps(state, indent=2).encode())
        if fsync:
            self.fsync(node)
        self.rename(tmp, "checkpoint.json")
        if dirsync:
            self.fsync_dir()

    def save_in_place(self, state: dict, path: str = "checkpoint.json"):
        node = self.open(path)
        self.write(node, json.dumps(state, indent=2).encode())


def run_agent(save=None, point_a=True, point_b=True, tokens="+=", b_after_model=False, builder=None, first_tokens=True,
              early=None) -> Builder:
    """The lesson's loop against the scripted model, saving with `save(builder, state)`. `early`: an
    extra save after each reply that asks for a tool, before point A: "tokens" (the reply not in
    messages yet) or "reply" (the reply in messages, pendingToolUse still None)."""
    b = builder or Builder()
    save = save or (lambda bb, st: bb.save_atomic(st, fsync=True, dirsync=True))
    conv = script()
    state = {"version": 1, "task": TASK, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": TASK}], "pendingToolUse": None}
    k = 0
    b.model(state["messages"])
    response = conv["responses"][0]
    if first_tokens:
        state["tokensUsed"] += response["usage"]["output_tokens"]
    while response["stop_reason"] == "tool_use":
        if early == "tokens":
            save(b, state)
        state["messages"].append({"role": "assistant", "content": response["content"]})
        if early == "reply":
            save(b, state)
        block = next(x for x in response["content"] if x["type"] == "tool_use")
        if point_a:
            state["pendingToolUse"] = {"id": block["id"], "name": block["name"], "input": block["input"]}
            save(b, state)
        b.tool(block["name"], block["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": conv["tool_results"][block["name"]]}]})
        state["turns"] += 1
        state["pendingToolUse"] = None
        if point_b and not b_after_model:
            save(b, state)
        k += 1
        b.model(state["messages"])
        response = conv["responses"][k]
        out = response["usage"]["output_tokens"]
        state["tokensUsed"] = state["tokensUsed"] + out if tokens == "+=" else out
        if point_b and b_after_model:
            save(b, state)
    return b
