"""The browser tap (fstap.js under graders.trace.browser) in real Pyodide under Node, offline: what
Python's file APIs do reaches the trace from below Python, as the design's event stream."""

from __future__ import annotations

import json
import textwrap

import pytest

from graders.judge.nivel2 import job as nivel2_job
from graders.trace.ops import Trace, from_dict

from .pyodide_node import ROOT, session

WORK, TMP = "/home/pyodide/projeto", "/tmp"


def run(body: str, states=({"n": 1},), imports="import json, os, io, pathlib, tempfile") -> Trace:
    """The trace of `save_checkpoint(state)` (with `body` as its body) called for each state."""
    code = f"{imports}\n\ndef save_checkpoint(state):\n{textwrap.indent(textwrap.dedent(body), '    ')}\n"
    job = {"function": "save_checkpoint", "states": list(states), "missing": "falta save_checkpoint"}
    return from_dict(session().ask({"code": code, "job": job})["trace"])


def python(expr: str) -> str:
    return session().ask({"python": expr})["value"]


def fs_events(trace: Trace, *kinds):
    return [e for e in trace.events if not kinds or e.kind in kinds]


def test_open_and_json_dump_write_the_bytes_that_reach_the_file():
    trace = run("""
        with open("checkpoint.json", "w", encoding="utf-8") as f:
            json.dump(state, f)
    """, states=[{"n": 1}, {"n": 22}])
    work = trace.root("work")
    assert (work.path, work.entries) == (WORK, [])
    assert trace.root("tmp").path == TMP
    opens, writes = fs_events(trace, "open"), fs_events(trace, "write")
    assert [(e.dir, e.name, e.created, e.trunc, e.kind2) for e in opens] == [
        (work.node, "checkpoint.json", True, False, "file"), (work.node, "checkpoint.json", False, True, "file")]
    assert opens[0].node == opens[1].node != work.node
    assert [(e.node, e.offset, e.data) for e in writes] == [(opens[0].node, 0, b'{"n": 1}'), (opens[0].node, 0, b'{"n": 22}')]
    assert [e.kind for e in trace.events] == ["open", "write", "returned", "open", "write", "returned"]
    assert trace.final == {f"{WORK}/checkpoint.json": b'{"n": 22}'}
    assert (trace.end, trace.code, trace.report["kind"]) == ("exit", 0, "ok")


def test_replace_names_what_moved_and_what_it_replaced():
    trace = run("""
        with open("checkpoint.json.tmp", "w") as f:
            json.dump(state, f)
        os.replace("checkpoint.json.tmp", "checkpoint.json")
    """, states=[{"n": 1}, {"n": 2}])
    work = trace.root("work").node
    first, second = fs_events(trace, "rename")
    assert (first.dir, first.name, first.dir2, first.name2, first.replaced) == (work, "checkpoint.json.tmp", work, "checkpoint.json", 0)
    assert second.replaced == first.node != second.node
    assert second.path == f"{WORK}/checkpoint.json.tmp" and second.path2 == f"{WORK}/checkpoint.json"


def test_fileio_pwrite_and_os_write_are_seen_with_their_offsets():
    trace = run("""
        raw = io.FileIO("a.bin", "w")
        raw.write(b"hello")
        raw.close()
        fd = os.open("b.bin", os.O_WRONLY | os.O_CREAT, 0o644)
        os.write(fd, b"abcdef")
        os.pwrite(fd, b"XY", 2)
        os.write(fd, b"!")
        os.writev(fd, [b"1", b"23"])
        os.close(fd)
    """)
    writes = [(e.offset, e.data) for e in fs_events(trace, "write")]
    assert writes == [(0, b"hello"), (0, b"abcdef"), (2, b"XY"), (6, b"!"), (7, b"1"), (8, b"23")]
    assert trace.final[f"{WORK}/b.bin"] == b"abXYef!123"


def test_opener_with_dir_fd_names_the_entry_in_its_folder():
    trace = run("""
        os.mkdir("dados")
        folder = os.open("dados", os.O_RDONLY)
        with open("checkpoint.json", "w", opener=lambda path, flags: os.open(path, flags, 0o644, dir_fd=folder)) as f:
            json.dump(state, f)
        os.fsync(folder)
        os.close(folder)
    """)
    mkdir, opened, write, fsync = fs_events(trace, "mkdir", "open", "write", "fsync")
    assert (mkdir.dir, mkdir.name, mkdir.kind2) == (trace.root("work").node, "dados", "dir")
    assert (opened.dir, opened.name, opened.path) == (mkdir.node, "checkpoint.json", f"{WORK}/dados/checkpoint.json")
    assert write.node == opened.node and fsync.node == mkdir.node
    assert trace.final == {f"{WORK}/dados/checkpoint.json": b'{"n": 1}'}


def test_pathlib_and_named_temporary_file_in_the_work_folder():
    body = """
        with tempfile.NamedTemporaryFile("w", dir=".", delete=False, suffix=".tmp") as f:
            json.dump(state, f)
        os.replace(f.name, "checkpoint.json")
        pathlib.Path("nota.txt").write_text("ok")
    """
    trace = run(body)
    temp, note = fs_events(trace, "open")
    assert temp.dir == trace.root("work").node and temp.name.endswith(".tmp") and temp.created
    assert fs_events(trace, "rename")[0].node == temp.node
    assert (note.name, fs_events(trace, "write")[-1].data) == ("nota.txt", b"ok")
    # tempfile's names come from a fixed seed: every run (and the CLI's) picks the same ones.
    assert fs_events(run(body), "open")[0].name == temp.name


def test_fsync_of_a_file_and_of_its_folder_and_fdatasync():
    trace = run("""
        with open("checkpoint.json", "w") as f:
            f.write("x")
            f.flush()
            os.fsync(f.fileno())
            os.fdatasync(f)
        folder = os.open(".", os.O_RDONLY)
        os.fsync(folder)
        os.close(folder)
    """)
    opened = fs_events(trace, "open")[0]
    syncs = [(e.node, e.flags) for e in fs_events(trace, "fsync")]
    assert syncs == [(opened.node, 0), (opened.node, 1), (trace.root("work").node, 0)]


def test_append_writes_land_at_the_end():
    trace = run("""
        for text in ("ab", "cde"):
            with open("log.txt", "a") as f:
                f.write(text)
        fd = os.open("log.txt", os.O_WRONLY | os.O_APPEND)
        os.write(fd, b"Z")
        os.close(fd)
    """)
    assert [(e.offset, e.data) for e in fs_events(trace, "write")] == [(0, b"ab"), (2, b"cde"), (5, b"Z")]
    assert [e.created for e in fs_events(trace, "open")] == [True, False, False]


def test_rename_from_tmp_into_the_work_folder_fails_with_exdev():
    trace = run("""
        fd, path = tempfile.mkstemp()
        os.write(fd, b"{}")
        os.close(fd)
        try:
            os.replace(path, "checkpoint.json")
        except OSError as exc:
            print("falhou:", errno.errorcode[exc.errno])
    """, imports="import errno, os, tempfile")
    opened = fs_events(trace, "open")[0]
    assert opened.dir == trace.root("tmp").node and opened.path.startswith(TMP + "/tmp")
    rename = fs_events(trace, "rename")[0]
    assert (rename.ok, rename.errno, rename.name2) == (False, "EXDEV", "checkpoint.json")
    assert trace.output == "falhou: EXDEV\n"
    assert f"{WORK}/checkpoint.json" not in trace.final


def test_truncate_unlink_rmdir_symlink_and_failed_calls():
    trace = run("""
        with open("a", "w") as f:
            f.write("12345")
            f.truncate(2)
        os.truncate("a", 1)
        os.symlink("a", "b")
        os.unlink("b")
        os.mkdir("d")
        os.rmdir("d")
        try:
            open("falta.json", "r+")
        except FileNotFoundError:
            pass
        try:
            os.unlink("falta.json")
        except FileNotFoundError:
            pass
    """)
    kinds = [(e.kind, e.ok, e.errno) for e in trace.events if e.kind not in ("open", "write", "returned") or not e.ok]
    assert kinds == [("truncate", True, ""), ("truncate", True, ""), ("symlink", True, ""), ("unlink", True, ""),
                     ("mkdir", True, ""), ("rmdir", True, ""), ("open", False, "ENOENT"), ("unlink", False, "ENOENT")]
    truncs = fs_events(trace, "truncate")
    assert [e.length for e in truncs] == [2, 1]
    link = fs_events(trace, "symlink")[0]
    assert (link.target, link.kind2, fs_events(trace, "unlink")[0].node) == ("a", "symlink", link.node)
    assert trace.final == {f"{WORK}/a": b"1"}


def test_calls_outside_the_roots_are_not_events_and_roots_cannot_go():
    trace = run("""
        os.makedirs("/outra", exist_ok=True)
        with open("/outra/x", "w") as f:
            f.write("fora")
        for call in (lambda: os.rmdir("/tmp"), lambda: os.rename(os.getcwd(), "/home/pyodide/movida")):
            try:
                call()
            except OSError as exc:
                print(exc.errno == errno.EBUSY)
    """, imports="import errno, os")
    assert [(e.kind, e.ok, e.errno) for e in trace.events if e.kind != "returned"] == [
        ("rmdir", False, "EBUSY"), ("rename", False, "EBUSY")]
    assert trace.output == "True\nTrue\n"


def test_the_home_is_a_root_that_nothing_survives_in():
    trace = run("""
        home = os.path.expanduser("~")
        os.makedirs(os.path.join(home, ".cache"), exist_ok=True)
        with open(os.path.join(home, ".cache", "x"), "w") as f:
            f.write("1")
        os.replace(os.path.join(home, ".cache", "x"), "checkpoint.json")  # same file system as the work folder
        print(sorted(os.listdir(home)))
    """, states=[{"n": 1}, {"n": 2}])
    home = trace.root("home")
    assert (home.path, [e["name"] for e in home.entries]) == ("/home/pyodide", ["projeto"])
    assert trace.output == "['.cache', 'projeto']\n" * 2  # the second run did not see the first one's files
    mkdir = fs_events(trace, "mkdir")[0]
    assert (mkdir.dir, mkdir.name) == (home.node, ".cache")
    assert [e.ok for e in fs_events(trace, "rename")] == [True, True]


def test_a_shared_writable_mmap_is_traced_as_the_writes_it_makes():
    """Emscripten's shared mappings are copies written back by msync and munmap: each write-back is a
    write event, at the moment the file changes; private and read-only mappings write nothing."""
    trace = run("""
        with open("checkpoint.json", "wb") as f:
            f.write(b"0" * 8)
        with open("checkpoint.json", "r+b") as f:
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
                assert view[:] == b"0" * 8
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY) as copy:
                copy[:4] = b"PRIV"
            m = mmap.mmap(f.fileno(), 0)
            m[:4] = b"ABCD"
            m.flush()
            print(open("checkpoint.json", "rb").read())
            m[4:] = b"EFGH"
            m.close()
        print(open("checkpoint.json", "rb").read())
    """, imports="import mmap")
    assert not fs_events(trace, "refused")
    writes = [(e.offset, e.data) for e in fs_events(trace, "write")]
    assert writes == [(0, b"0" * 8), (0, b"ABCD0000"), (0, b"ABCDEFGH")], writes
    assert trace.output == "b'ABCD0000'\nb'ABCDEFGH'\n"
    assert trace.final == {f"{WORK}/checkpoint.json": b"ABCDEFGH"}


def test_the_reference_solution_interleaves_model_and_tool_calls():
    code = (ROOT / "exercises" / "nivel-2" / "solution.py").read_text()
    trace = from_dict(session().ask({"code": code, "job": nivel2_job()})["trace"])
    # Each save: the temporary written and fsynced, renamed, then the folder fsynced (power loss).
    save = ["open", "write", "fsync", "rename", "fsync"]
    assert [e.kind for e in trace.events] == ["model"] + (save + ["tool"] + save + ["model"]) * 2
    assert [e.call for e in trace.events if e.kind in ("model", "tool")] == [1, 1, 2, 2, 3]
    assert trace.ended_cleanly
    assert json.loads(trace.final[f"{WORK}/checkpoint.json"])["turns"] == 2


def test_a_thread_gets_a_portuguese_message_not_a_verdict():
    for body in ("threading.Thread(target=print).start()",
                 "try:\n    threading.Thread(target=print).start()\nexcept RuntimeError:\n    pass"):
        trace = run(body, imports="import threading")
        assert trace.end == "broken"
        assert "thread" in trace.limits["message"] and "navegador" in trace.limits["message"]


def test_asyncio_runs_as_on_a_computer_and_its_threads_get_the_message():
    loop = "import asyncio; repr((asyncio.events._get_running_loop(), asyncio.events._get_event_loop_policy()._default_loop))"
    before = python(loop)
    body = """
        async def save():
            await asyncio.sleep(0.01)
            await asyncio.gather(asyncio.sleep(0), asyncio.sleep(0))
            with open("checkpoint.json", "w") as f:
                json.dump(state, f)
        asyncio.run(save())
    """
    trace = run(body, imports="import asyncio, json")
    assert trace.ended_cleanly and trace.final == {f"{WORK}/checkpoint.json": b'{"n": 1}'}
    assert python(loop) == before  # Pyodide's own loop is back, running and current
    trace = run("asyncio.run(asyncio.to_thread(print))", imports="import asyncio")
    assert trace.end == "broken" and "thread" in trace.limits["message"]


@pytest.mark.parametrize("body, end, code, kind", [
    ("import sys\nsys.exit(0)", "exit", 1, "exit"),
    # As in the CLI: the process ends at once, with that status or signal, and reports nothing.
    ("try:\n    os._exit(3)\nexcept BaseException:\n    pass", "exit", 3, None),
    ("os.abort()", "signal", 6, None),
    ("os.kill(os.getpid(), 9)", "signal", 9, None),
    ("raise ValueError('x')", "exit", 1, "exception"),
    ("while True:\n    print('x' * 1000)", "flood", 0, "exception"),
])
def test_how_a_run_ends_is_seen_by_the_trusted_side(body, end, code, kind):
    trace = run(body, imports="import os")
    assert (trace.end, trace.code, trace.report.get("kind")) == (end, code, kind)
    assert len(trace.output) < 25_000


def test_a_run_past_the_event_limit_is_a_runaway():
    trace = run("""
        fd = os.open("x", os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"a")
        except OSError as exc:
            print(errno.errorcode[exc.errno])
    """, imports="import errno, os")
    assert (trace.end, trace.output, list(trace.limits)) == ("runaway", "ENOSPC\n", ["events"])


def test_the_interpreter_is_put_back_after_a_run():
    before = python("import os, sys, tempfile; repr((os.getcwd(), os.replace, os._exit, sys.stdout, tempfile.tempdir, sys.getrecursionlimit()))")
    run("""
        import sys, os, json, tempfile, colorsys
        os.chdir("/tmp")
        os.replace = print
        json.dumps = None
        tempfile.tempdir = "/"
        sys.setrecursionlimit(50)
    """, imports="")
    assert python("import os, sys, tempfile; repr((os.getcwd(), os.replace, os._exit, sys.stdout, tempfile.tempdir, sys.getrecursionlimit()))") == before
    assert python("import sys, json; str(('colorsys' in sys.modules, json.dumps({})))") == "(False, '{}')"
    # Trusted code can reach the bridges again; the roots stay for the next run to empty.
    assert python("import _fstap, js; 'ok'") == "ok"
