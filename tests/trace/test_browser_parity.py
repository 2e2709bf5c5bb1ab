"""Parity of the two taps: the same honest programs give the same normalized event streams from the
kernel tap (CLI, CPython here) and the browser tap (Pyodide under Node): kinds, names, paths relative
to their root, offsets, bytes, created/trunc, and nodes renumbered by first appearance."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap

import pytest

from corpus_cases import all_cases
from graders.judge import nivel1, nivel2
from graders.trace.ops import Trace, event_to_dict, from_json

from .pyodide_node import ROOT, session

JOBS = {"nivel-1": nivel1.job(), "nivel-2": nivel2.job()}
# Programs whose runs differ by nature, not by tap.
NOT_COMPARABLE = {
    "bad_extra_field.py": "writes time.time()",
    "ok_unique_tmp_name.py": "names its file after os.getpid()",
    "bad_tmp_hardcoded_in_tmp.py": "writes to the literal /tmp: the reduced kernel tap's tmp root is a private folder",
}


def _program(body: str, imports: str = "import errno, io, json, os, pathlib, tempfile") -> str:
    return f"{imports}\n\ndef save_checkpoint(state):\n{textwrap.indent(textwrap.dedent(body), '    ')}\n"


# Honest uses of the APIs the issue names, beside the corpus.
EXTRA = {
    "fileio-write-pwrite-writev": _program("""
        raw = io.FileIO("a.bin", "w")
        raw.write(b"hello")
        raw.close()
        fd = os.open("checkpoint.json", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, b"abcdef")
        os.pwrite(fd, b"XY", 2)
        os.writev(fd, [b"1", b"23"])
        os.fsync(fd)
        os.close(fd)
    """),
    "dir-fd-opener-and-folder-fsync": _program("""
        os.makedirs("dados", exist_ok=True)
        folder = os.open("dados", os.O_RDONLY)
        with open("checkpoint.tmp", "w", opener=lambda p, f: os.open(p, f, 0o644, dir_fd=folder)) as f:
            json.dump(state, f)
        os.replace("checkpoint.tmp", "checkpoint.json", src_dir_fd=folder, dst_dir_fd=folder)
        os.fsync(folder)
        os.close(folder)
    """),
    "append-and-truncate": _program("""
        with open("log.txt", "a") as f:
            f.write(json.dumps(state) + "\\n")
        with open("log.txt", "r+") as f:
            f.truncate(3)
        os.truncate("log.txt", 1)
    """),
    "pathlib-namedtemporaryfile-fdatasync": _program("""
        with tempfile.NamedTemporaryFile("w", dir=".", delete=False, suffix=".tmp") as f:
            json.dump(state, f)
            f.flush()
            os.fdatasync(f.fileno())
        os.replace(f.name, "checkpoint.json")
        pathlib.Path("nota.txt").write_text("ok")
        pathlib.Path("nota.txt").unlink()
    """),
    "mkdir-symlink-failed-calls": _program("""
        os.makedirs("d", exist_ok=True)
        os.symlink("d", "ligacao")
        os.unlink("ligacao")
        for call in (lambda: os.mkdir("d"), lambda: os.unlink("falta"), lambda: open("falta/x", "w")):
            try:
                call()
            except OSError:
                pass
    """),
    "asyncio": _program("""
        async def save():
            await asyncio.sleep(0)
            with open("checkpoint.tmp", "w") as f:
                json.dump(state, f)
            os.replace("checkpoint.tmp", "checkpoint.json")
        asyncio.run(save())
    """, imports="import asyncio, json, os"),
    "rmdir": _program("""
        os.mkdir("d")
        os.rmdir("d")
    """),
    "exdev-from-tmp": _program("""
        fd, path = tempfile.mkstemp()
        os.write(fd, json.dumps(state).encode())
        os.close(fd)
        try:
            os.replace(path, "checkpoint.json")
        except OSError as exc:
            print(errno.errorcode[exc.errno])
            os.unlink(path)
    """),
}

CASES = [(c.id, c.path.read_text(encoding="utf-8"), JOBS[c.exercise]) for c in all_cases()
         if c.path.suffix == ".py" and not c.cli_only and c.path.name not in NOT_COMPARABLE]
CASES += [(name, code, {"function": "save_checkpoint", "states": [{"n": 1}, {"n": 2}], "missing": "x"})
          for name, code in EXTRA.items()]
# Known differences between the taps, reported to their owners (none now).
KERNEL_NITS: dict[str, str] = {}

# The kernel side runs in a process of its own, all cases in one batch.
# Roots as in the CLI's sandbox: a home holding the work folder, and a tmp on another file system
# (a tmpfs there): a rename between them fails with EXDEV in both taps.
KERNEL_BATCH = r"""
import json, os, shutil, sys, tempfile
from graders.trace.kernel import run_traced
from graders.trace.ops import to_json
out = []
for code, job in json.load(sys.stdin):
    home, tmp = tempfile.mkdtemp(dir="/dev/shm"), tempfile.mkdtemp()
    work = os.path.join(home, "projeto")
    os.mkdir(work)
    env = {"HOME": home, "PATH": "/usr/bin:/bin", "TMPDIR": tmp, "LANG": "C.UTF-8"}
    out.append(to_json(run_traced(code, "solucao.py", job, work=work, tmp=tmp, home=home, reduced=True,
                                  env=env, python=sys.executable)))
    shutil.rmtree(home), shutil.rmtree(tmp)
json.dump(out, sys.stdout)
"""


@pytest.fixture(scope="module")
def kernel_traces() -> dict[str, Trace]:
    if os.stat("/dev/shm").st_dev == os.stat(tempfile.gettempdir()).st_dev:
        pytest.skip("needs /dev/shm and /tmp on two file systems")
    run = subprocess.run([sys.executable, "-c", KERNEL_BATCH], input=json.dumps([[c, j] for _, c, j in CASES]),
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return {name: from_json(text) for (name, _, _), text in zip(CASES, json.loads(run.stdout))}


# Paths are reported by both taps only for these; the judge reads nodes, not paths.
PATH_KINDS = {"open", "rename", "unlink", "rmdir", "mkdir", "symlink", "link"}
# tempfile's random part ("tmp" + 8, or after a prefix ending in "."): numbered by first appearance.
RANDOM_NAME = re.compile(r"(?:(?<=tmp)|(?<=\.))[a-z0-9_]{8}(?=\.|$|/)")


def normalized(trace: Trace) -> dict:
    ids: dict[int, int] = {}
    names: dict[str, str] = {}

    def node(n: int) -> int:
        return ids.setdefault(n, len(ids) + 1) if n else 0

    def name(text: str) -> str:
        return RANDOM_NAME.sub(lambda m: names.setdefault(m.group(0), f"<{len(names)}>"), text)

    roots = sorted(((r.path, f"<{r.role}>") for r in trace.roots), key=lambda r: -len(r[0]))

    def path(p: str) -> str:
        for prefix, role in roots:
            if p == prefix or p.startswith(prefix + "/"):
                return name(role + p[len(prefix):])
        return name(p)

    for root in trace.roots:
        node(root.node)
    started = [(r.role, [(e.get("kind"), node(e["dir"]), e["name"], node(e["node"])) for e in r.entries])
               for r in trace.roots]
    events = []
    for e in _without_tempdir_probe(trace.events):
        d = event_to_dict(e)
        for key in ("node", "dir", "dir2", "replaced"):
            if key in d:
                d[key] = node(d[key])
        for key in ("name", "name2"):
            if key in d:
                d[key] = name(d[key])
        for key in ("path", "path2"):
            if key in d:
                if e.kind in PATH_KINDS:
                    d[key] = path(d[key])
                else:
                    del d[key]
        last = events[-1] if events else None
        # Python 3.11 and Pyodide's 3.14 buffer differently: contiguous writes to a node are one.
        if (last and e.kind == last["kind"] == "write" and e.ok and last.get("ok", True)
                and last.get("node") == d.get("node") and last.get("offset", 0) + len(last.get("data", "")) == e.offset):
            last["data"] = last.get("data", "") + d.get("data", "")
            continue
        events.append(d)
    final = None if trace.final is None else {path(p): v for p, v in trace.final.items()}
    return {"roots": started, "end": trace.end, "code": trace.code, "report": trace.report.get("kind"),
            "events": events, "final": final}


def _without_tempdir_probe(events):
    """tempfile.gettempdir()'s first call writes and removes a probe file (the CLI runner leaves
    tempfile.tempdir unset; the browser sets it)."""
    events = list(events)
    for i, e in enumerate(events[:-2]):
        w, u = events[i + 1], events[i + 2]
        if (e.kind == "open" and e.created and w.kind == "write" and w.node == e.node and w.data == b"blat"
                and u.kind == "unlink" and u.node == e.node):
            return events[:i] + events[i + 3:]
    return events


@pytest.mark.parametrize("name, code, job", [
    pytest.param(*c, marks=pytest.mark.xfail(reason=KERNEL_NITS[c[0]])) if c[0] in KERNEL_NITS else c for c in CASES
], ids=[c[0] for c in CASES])
def test_both_taps_see_the_same_run(kernel_traces, name, code, job):
    browser = from_json(json.dumps(session().ask({"code": code, "job": job})["trace"]))
    kernel = kernel_traces[name]
    want, got = normalized(kernel), normalized(browser)
    for key in ("roots", "end", "code", "report", "final"):
        assert got[key] == want[key], key
    for i, (k, b) in enumerate(zip(want["events"], got["events"])):
        assert b == k, f"event {i}"
    assert len(got["events"]) == len(want["events"])


def test_every_comparable_corpus_program_is_compared():
    assert len(CASES) >= 80 + len(EXTRA)
