"""The kernel tap through the CLI sandbox: real programs, events asserted, effects checked from
outside (the final tree read by the trusted side, files and processes on the host)."""

from __future__ import annotations

import os
import pathlib
import shutil
import tempfile
import textwrap

import pytest

from graders.sandbox.sandbox import Sandbox
from graders.trace import kernel

from .test_warm_interpreter import is_warm_interpreter

JOB = {"function": "save_checkpoint", "states": [{"n": 1}]}
MODES = ["isolated", "reduced"]


def _bwrap_works() -> bool:
    return shutil.which("bwrap") is not None


@pytest.fixture(scope="module", params=MODES)
def sandbox(request):
    if request.param == "isolated" and not _bwrap_works():
        pytest.skip("bwrap indisponível")
    box = Sandbox(isolated=request.param == "isolated", memory_mb=1024)
    yield box
    box.close()


@pytest.fixture(scope="module")
def isolated():
    if not _bwrap_works():
        pytest.skip("bwrap indisponível")
    box = Sandbox(isolated=True)
    yield box
    box.close()


@pytest.fixture(scope="module")
def reduced():
    box = Sandbox(isolated=False)
    yield box
    box.close()


def run(box, body: str, timeout: float = 10.0, job=JOB):
    source = "import os, sys, json\n" + textwrap.dedent(body)
    return box.run(source, "aluno.py", job, timeout)


def events(trace, kind):
    return [e for e in trace.events if e.kind == kind]


def work(trace) -> str:
    return trace.root("work").path


def final(trace, name: str):
    return trace.final.get(os.path.join(work(trace), name))


def ok(trace):
    assert trace.end == "exit" and trace.code == 0, (trace.end, trace.code, trace.output, trace.report)


def written(trace, node) -> bytes:
    """The file as the recorded writes and truncations build it (sequential model)."""
    data = bytearray()
    for e in trace.events:
        if e.node != node or not e.ok:
            continue
        if e.kind == "open" and (e.trunc or e.created):
            data = bytearray()
        elif e.kind == "write":
            end = e.offset + len(e.data)
            if len(data) < end:
                data.extend(b"\0" * (end - len(data)))
            data[e.offset:end] = e.data
        elif e.kind == "truncate":
            del data[e.length:]
            data.extend(b"\0" * (e.length - len(data)))
    return bytes(data)


def node_at(trace, name):
    """The node that ended at `name` in the work folder (following opens, renames, unlinks)."""
    wnode = trace.root("work").node
    where = {}
    for e in trace.events:
        if not e.ok:
            continue
        if e.kind == "open" and e.name:
            where[(e.dir, e.name)] = e.node
        elif e.kind == "rename":
            moved = where.pop((e.dir, e.name), e.node)
            where[(e.dir2, e.name2)] = moved
        elif e.kind in ("unlink", "rmdir"):
            where.pop((e.dir, e.name), None)
        elif e.kind in ("link", "symlink", "mkdir"):
            where[(e.dir, e.name)] = e.node
    return where.get((wnode, name))


# --- honest code ---------------------------------------------------------------------------------


def test_open_json_dump_and_replace(sandbox):
    trace = run(sandbox, """
        def save_checkpoint(state):
            with open("checkpoint.json.tmp", "w") as f:
                json.dump(state, f)
            os.replace("checkpoint.json.tmp", "checkpoint.json")
    """)
    ok(trace)
    opened = events(trace, "open")
    assert [(e.name, e.created, e.dir) for e in opened] == [("checkpoint.json.tmp", True, trace.root("work").node)]
    (rename,) = events(trace, "rename")
    assert (rename.node, rename.name, rename.name2, rename.replaced) == (opened[0].node, "checkpoint.json.tmp", "checkpoint.json", 0)
    assert b"".join(e.data for e in events(trace, "write")) == b'{"n": 1}'
    assert final(trace, "checkpoint.json") == b'{"n": 1}'
    assert written(trace, node_at(trace, "checkpoint.json")) == final(trace, "checkpoint.json")


def test_fileio_opener_dir_fd_and_pathlib(sandbox):
    trace = run(sandbox, """
        import io, pathlib
        def save_checkpoint(state):
            with io.FileIO("a.bin", "w") as f:
                f.write(b"fileio")
            d = os.open(".", os.O_RDONLY)
            with open("b.txt", "w", opener=lambda p, fl: os.open(p, fl, 0o644, dir_fd=d)) as f:
                f.write("dirfd")
            os.mkdir("sub")
            s = os.open("sub", os.O_RDONLY)
            with open("c.txt", "w", opener=lambda p, fl: os.open(p, fl, 0o644, dir_fd=s)) as f:
                f.write("in sub")
            pathlib.Path("d.txt").write_text("pathlib")
    """)
    ok(trace)
    names = {e.name: e for e in events(trace, "open")}
    assert set(names) == {"a.bin", "b.txt", "c.txt", "d.txt"}
    (mkdir,) = events(trace, "mkdir")
    assert names["c.txt"].dir == mkdir.node and names["b.txt"].dir == trace.root("work").node
    assert final(trace, "sub/c.txt") == b"in sub"
    for name, content in (("a.bin", b"fileio"), ("b.txt", b"dirfd"), ("d.txt", b"pathlib"), ("sub/c.txt", b"in sub")):
        node = names[os.path.basename(name)].node
        assert written(trace, node) == content == final(trace, name)


def test_os_write_writev_pwrite_and_append_offsets(sandbox):
    trace = run(sandbox, """
        def save_checkpoint(state):
            fd = os.open("f", os.O_WRONLY | os.O_CREAT, 0o644)
            os.write(fd, b"hello ")
            os.writev(fd, [b"wor", b"ld"])
            os.pwrite(fd, b"J", 0)
            os.close(fd)
            fd = os.open("f", os.O_WRONLY | os.O_APPEND)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, b"!")
            os.close(fd)
            with open("g", "ab") as f:
                f.write(b"12")
            with open("g", "ab") as f:
                f.write(b"345")
    """)
    ok(trace)
    writes = [(e.offset, e.data) for e in events(trace, "write")]
    assert writes == [(0, b"hello "), (6, b"world"), (0, b"J"), (11, b"!"), (0, b"12"), (2, b"345")]
    assert final(trace, "f") == b"Jello world!" and final(trace, "g") == b"12345"


def test_named_temporary_file_fsync_file_and_directory(sandbox):
    trace = run(sandbox, """
        import tempfile
        def save_checkpoint(state):
            with tempfile.NamedTemporaryFile("w", dir=".", delete=False) as f:
                json.dump(state, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(f.name, "checkpoint.json")
            d = os.open(".", os.O_RDONLY)
            os.fsync(d)
            os.fdatasync(d)
            os.close(d)
    """)
    ok(trace)
    (opened,) = events(trace, "open")
    syncs = [(e.node, e.flags) for e in events(trace, "fsync")]
    wnode = trace.root("work").node
    assert syncs == [(opened.node, 0), (wnode, 0), (wnode, 1)]
    kinds = [e.kind for e in trace.events if e.kind in ("open", "write", "fsync", "rename")]
    assert kinds == ["open", "write", "fsync", "rename", "fsync", "fsync"]
    assert final(trace, "checkpoint.json") == b'{"n": 1}'


def test_o_tmpfile_then_linkat(sandbox):
    trace = run(sandbox, """
        def save_checkpoint(state):
            fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o644)
            os.write(fd, b"anon")
            try:
                os.link(f"/proc/self/fd/{fd}", "nao.json")  # link(2) does not follow: the kernel says EXDEV
            except OSError as exc:
                import errno; open("errno.txt", "w").write(errno.errorcode[exc.errno])
            d = os.open(".", os.O_RDONLY)
            os.link(f"/proc/self/fd/{fd}", "checkpoint.json", dst_dir_fd=d)  # linkat AT_SYMLINK_FOLLOW
            os.close(fd)
    """)
    ok(trace)
    (opened,) = [e for e in events(trace, "open") if e.name != "errno.txt"]
    assert (opened.name, opened.created, opened.dir) == ("", True, trace.root("work").node)
    (link,) = [e for e in events(trace, "link") if e.ok]
    assert (link.node, link.name) == (opened.node, "checkpoint.json")
    assert final(trace, "checkpoint.json") == b"anon" and final(trace, "nao.json") is None
    assert final(trace, "errno.txt") == b"EXDEV"


def test_asyncio_threads_and_subprocess(sandbox):
    trace = run(sandbox, """
        import asyncio, threading, subprocess
        def write(name, text):
            with open(name, "w") as f:
                f.write(text)
        async def main():
            await asyncio.to_thread(write, "async.txt", "from asyncio")
            await asyncio.sleep(0)
        def save_checkpoint(state):
            asyncio.run(main())
            threads = [threading.Thread(target=write, args=(f"t{i}.txt", f"thread {i}" * 50)) for i in range(2)]
            for t in threads: t.start()
            for t in threads: t.join()
            subprocess.run([sys.executable, "-c", "open('sub.txt', 'w').write('child')"], check=True)
    """)
    ok(trace)
    assert final(trace, "async.txt") == b"from asyncio"
    for i in range(2):
        assert final(trace, f"t{i}.txt") == f"thread {i}".encode() * 50
        assert written(trace, node_at(trace, f"t{i}.txt")) == final(trace, f"t{i}.txt")
    assert final(trace, "sub.txt") == b"child"
    assert written(trace, node_at(trace, "sub.txt")) == b"child"


def test_replace_from_tmp_into_work_fails_with_exdev(isolated):
    trace = run(isolated, """
        import tempfile
        def save_checkpoint(state):
            fd, path = tempfile.mkstemp()
            os.write(fd, b"x")
            os.close(fd)
            try:
                os.replace(path, "checkpoint.json")
            except OSError as exc:
                print("erro", exc.errno)
    """)
    ok(trace)
    (rename,) = events(trace, "rename")
    assert not rename.ok and rename.errno == "EXDEV"
    assert rename.path.startswith("/tmp/") and rename.path2 == "/home/aluno/projeto/checkpoint.json"
    assert "erro 18" in trace.output
    assert final(trace, "checkpoint.json") is None


def test_output_and_report(sandbox):
    trace = run(sandbox, """
        print("olá")
        def save_checkpoint(state):
            print("dentro", file=sys.stderr)
            raise ValueError("ruim")
    """)
    assert trace.end == "exit" and trace.code == 1
    assert "olá" in trace.output and "dentro" in trace.output
    assert trace.report["kind"] == "exception" and trace.report["exc_type"] == "ValueError"
    assert trace.report["frames"][-1][1] == "save_checkpoint"


# --- hostile code --------------------------------------------------------------------------------


def test_shared_mmap_stores_are_traced_as_writes_before_the_next_call(sandbox):
    """In-place stores through a shared mapping are not refused any more: they show up as writes
    of the file, recorded before the next call (here the rename), so the trace builds the disk."""
    trace = run(sandbox, """
        import mmap
        def save_checkpoint(state):
            with open("checkpoint.json", "w") as f:
                f.write("decoy-decoy")
            with open("checkpoint.json", "r+b") as f:
                m = mmap.mmap(f.fileno(), 0)
                m[:5] = b"REAL!"
                m.close()
            os.rename("checkpoint.json", "moved.json")
            with open("moved.json", "r+b") as f:
                m = mmap.mmap(f.fileno(), 0)
                m[-5:] = b"later"
                m.flush()
                m.close()
    """)
    ok(trace)
    assert not events(trace, "refused")
    assert final(trace, "moved.json") == b"REAL!-later"
    node = node_at(trace, "moved.json")
    assert written(trace, node) == b"REAL!-later"
    kinds = [e.kind for e in trace.events if e.node == node or e.kind == "rename"]
    first_store = next(i for i, e in enumerate(trace.events) if e.kind == "write" and e.data.startswith(b"REAL!"))
    rename = next(i for i, e in enumerate(trace.events) if e.kind == "rename")
    assert first_store < rename, kinds
    msync = [e for e in events(trace, "fsync") if e.node == node]
    assert msync and msync[0].flags == 1  # m.flush() is msync(MS_SYNC): made durable, and said so


def test_shared_mmap_with_another_thread_running_is_traced(sandbox):
    """With a second thread, the descriptor could be swapped before the kernel maps it: the mapping is
    confirmed in the process's maps before anything else runs, then traced like any other (its stores
    are writes of the file), and nothing is refused."""
    trace = run(sandbox, """
        import mmap, threading
        def save_checkpoint(state):
            with open("checkpoint.json", "w") as f:
                f.write("decoy-decoy")
            stop = threading.Event()
            worker = threading.Thread(target=stop.wait)
            worker.start()
            try:
                with open("checkpoint.json", "r+b") as f:
                    m = mmap.mmap(f.fileno(), 0)
                    m[:5] = b"REAL!"
                    m.close()
            finally:
                stop.set()
                worker.join()
    """)
    ok(trace)
    assert not events(trace, "refused")
    assert events(trace, "mapped")
    assert final(trace, "checkpoint.json") == b"REAL!-decoy"
    node = events(trace, "mapped")[0].node
    assert any(e.node == node and e.data.startswith(b"REAL!") for e in events(trace, "write"))


def test_read_only_shared_mmap_of_a_writable_descriptor_is_not_a_writer(sandbox):
    """PROT_READ of an O_RDWR descriptor, threads running: not refused, not "mapped"; an mprotect that
    adds PROT_WRITE afterwards makes it one, before the kernel runs it."""
    trace = run(sandbox, """
        import ctypes, mmap, threading
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
        libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        def save_checkpoint(state):
            with open("a.bin", "wb") as f:
                f.write(b"a" * 4096)
            with open("b.bin", "wb") as f:
                f.write(b"b" * 4096)
            stop = threading.Event()
            worker = threading.Thread(target=stop.wait)
            worker.start()
            try:
                with open("a.bin", "r+b") as f, mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ) as m:
                    assert m[:1] == b"a"
                fd = os.open("b.bin", os.O_RDWR)
                address = libc.mmap(None, 4096, 1, 1, fd, 0)
                assert libc.mprotect(address, 4096, 3) == 0
                ctypes.memmove(address, b"B", 1)
                os.close(fd)
            finally:
                stop.set()
                worker.join()
    """)
    ok(trace)
    assert not events(trace, "refused")
    mapped = events(trace, "mapped")
    assert [e.path.rsplit("/", 1)[-1] for e in mapped] == ["b.bin"], mapped
    assert final(trace, "b.bin")[:2] == b"Bb"


_BUSY_THREAD = """
    import ctypes, hashlib, mmap, threading
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    BLOB = bytes(64 << 20)
    def busy(address, protected):
        # mprotect(PROT_READ|PROT_WRITE) of anonymous memory (what glibc does when a thread's arena
        # grows), then a long C loop with no call: to the supervisor, maybe still in the mprotect.
        assert libc.mprotect(address, 4096, 3) == 0
        protected.set()
        hashlib.sha256(BLOB).digest()
    def with_busy_thread(address, then):
        protected = threading.Event()
        worker = threading.Thread(target=busy, args=(address, protected))
        worker.start()
        protected.wait()
        try:
            then()
        finally:
            worker.join()
"""


def test_read_only_mmap_while_another_thread_makes_its_own_memory_writable_is_not_a_writer(sandbox):
    """Another thread may still be in an mprotect adding PROT_WRITE when a read-only shared mapping is
    made: the mapping could become writable only by landing in that call's range, so where it landed
    decides. Elsewhere (any honest program's case): not "mapped", not refused."""
    trace = run(sandbox, _BUSY_THREAD + """
    def save_checkpoint(state):
        with open("checkpoint.json", "w") as f:
            f.write(json.dumps(state))
        own = mmap.mmap(-1, 4096)
        def verify():
            with open("checkpoint.json", "r+b") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
                assert json.loads(m[:]) == state
        verify()  # a read-only mapping the supervisor already knows of, as in a second save
        with_busy_thread(ctypes.addressof(ctypes.c_char.from_buffer(own)), verify)
    """)
    ok(trace)
    assert not events(trace, "refused")
    assert not events(trace, "mapped"), events(trace, "mapped")


def test_read_only_mmap_landing_in_the_range_of_an_unfinished_mprotect_is_a_writer(sandbox):
    """The same, but the read-only mapping is placed (MAP_FIXED) right where the other thread's mprotect
    adding PROT_WRITE may still run: that call could make it writable after the kernel mapped it, so it
    is traced as a writable mapping ("mapped")."""
    trace = run(sandbox, _BUSY_THREAD + """
    def save_checkpoint(state):
        with open("checkpoint.json", "w") as f:
            f.write(json.dumps(state))
        address = libc.mmap(None, 4096, 1, 0x22, -1, 0)  # PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS
        fd = os.open("checkpoint.json", os.O_RDWR)
        def land():
            assert libc.mmap(address, 4096, 1, 0x11, fd, 0) == address  # MAP_SHARED|MAP_FIXED
        with_busy_thread(address, land)
        os.close(fd)
    """)
    ok(trace)
    assert not events(trace, "refused")
    assert [e.path.rsplit("/", 1)[-1] for e in events(trace, "mapped")] == ["checkpoint.json"]


def test_copy_calls_are_performed_and_traced_as_writes(sandbox):
    """sendfile, copy_file_range and splice into a file of the roots: done by the supervisor, recorded
    as the writes they are (with the offsets they were given, read once), not refused."""
    trace = run(sandbox, """
        def save_checkpoint(state):
            with open("src.bin", "wb") as f:
                f.write(b"0123456789abcdef")
            src = os.open("src.bin", os.O_RDONLY)
            dst = os.open("out.bin", os.O_WRONLY | os.O_CREAT, 0o644)
            sent = os.sendfile(dst, src, 4, 6)                       # "456789" at 0
            copied = os.copy_file_range(src, dst, 3, 10, 6)          # "abc" at 6
            r, w = os.pipe()
            os.write(w, b"PIPE")
            spliced = os.splice(r, dst, 4)                           # "PIPE" at 6 (position moved by sendfile only)
            os.lseek(src, 0, os.SEEK_SET)
            tail = os.sendfile(dst, src, None, 2)                    # "01" at the current position
            print(sent, copied, spliced, tail, os.lseek(src, 0, os.SEEK_CUR), os.lseek(dst, 0, os.SEEK_CUR))
            big = os.open("big.bin", os.O_RDWR | os.O_CREAT, 0o644)
            os.write(big, b"b" * 100_000)
            to_pipe = os.sendfile(w, big, 0, 100_000)  # into a pipe: a part, never a supervisor stuck on it
            print(0 < to_pipe <= 65536 and len(os.read(r, 100_000)) == to_pipe)
            os.close(big)
            memory = os.memfd_create("m")
            os.write(memory, b"zz")
            try:
                os.copy_file_range(memory, dst, 2, 0)
            except OSError as exc:  # another file system: the kernel's EXDEV, kept
                print(exc.errno)
            os.close(src); os.close(dst)
    """)
    ok(trace)
    assert not events(trace, "refused")
    assert trace.output.split() == ["6", "3", "4", "2", "2", "12", "True", "18"]
    assert final(trace, "out.bin") == b"456789PIPE01"
    assert written(trace, node_at(trace, "out.bin")) == b"456789PIPE01"


def test_metadata_changes_by_path_work_the_same_in_both_modes(sandbox):
    """chmod, utime and shutil.copy2 inside the work folder: in reduced mode the supervisor performs
    them with the arguments it copied once (mode, times), and the result is what the kernel gives."""
    trace = run(sandbox, """
        import shutil, stat
        def save_checkpoint(state):
            with open("a.txt", "w") as f:
                f.write("a")
            os.chmod("a.txt", 0o600)
            os.utime("a.txt", (1_000_000_000, 1_000_000_000))
            os.utime("a.txt", ns=(5, 1_500_000_000_123_456_789))
            shutil.copy2("a.txt", "b.txt")
            a, b = os.stat("a.txt"), os.stat("b.txt")
            print(oct(stat.S_IMODE(a.st_mode)), a.st_mtime_ns, oct(stat.S_IMODE(b.st_mode)), b.st_mtime_ns)
    """)
    ok(trace)
    assert not events(trace, "refused")
    assert trace.output.split() == ["0o600", "1500000000123456789", "0o600", "1500000000123456789"]


REFUSALS = """
    import ctypes, errno
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    def save_checkpoint(state):
        results = {}
        for name, nr, args in [("io_uring_setup", 425, (8, 0)), ("ptrace", 101, (0, 0, 0, 0)),
                               ("process_vm_writev", 311, (os.getppid(), 0, 0, 0, 0, 0)),
                               ("seccomp", 317, (1, 0, 0)), ("unshare", 272, (0x20000,)),
                               ("prctl", 157, (22, 2, 0))]:
            rc = libc.syscall(nr, *args)
            results[name] = (rc, ctypes.get_errno())
        print(json.dumps(results))
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="números de syscall do x86_64")
def test_escape_calls_are_refused(sandbox):
    trace = run(sandbox, REFUSALS)
    ok(trace)
    import json

    results = json.loads(trace.output.strip().splitlines()[-1])
    assert all(rc == -1 for rc, _ in results.values()), results
    refused = {e.payload["call"] for e in events(trace, "refused")}
    assert refused == {"io_uring_setup", "ptrace", "process_vm_writev", "seccomp", "unshare", "prctl"}
    assert all(e.payload["message"] for e in events(trace, "refused"))


def test_kill_supervisor_and_everyone_is_refused(sandbox):
    trace = run(sandbox, """
        import signal
        def save_checkpoint(state):
            out = []
            # Reduced mode answers getpgid of a process outside the run with ESRCH, as bubblewrap does.
            for pid in (os.getppid, lambda: -1, lambda: -os.getpgid(os.getppid()), lambda: 1):
                try:
                    os.kill(pid(), signal.SIGKILL)
                    out.append("killed")
                except PermissionError:
                    out.append("EPERM")
                except ProcessLookupError:
                    out.append("ESRCH")
            try:
                os.pidfd_open(os.getppid())
                out.append("pidfd")
            except PermissionError:
                out.append("EPERM")
            print(out)
    """)
    ok(trace)
    assert "killed" not in trace.output and "pidfd'" not in trace.output
    assert run(sandbox, "def save_checkpoint(state): pass").end == "exit"


def test_groups_the_run_makes_never_reach_a_process_outside(sandbox):
    """A group or session of the run's own (reduced mode keeps them in the supervisor) gives no way to
    signal a process outside: a decoy in its own group and session survives every attempt, checked
    from outside."""
    import signal
    import subprocess
    import sys

    decoy = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        trace = run(sandbox, f"""
            import signal
            def save_checkpoint(state):
                out = []
                def attempt(name, call):
                    try:
                        call()
                        out.append(name + ":ok")
                    except OSError as exc:
                        out.append(name + ":" + type(exc).__name__)
                attempt("getpgid", lambda: os.getpgid({decoy.pid}))
                child = os.fork()
                if child == 0:
                    code = 0
                    try:
                        os.setpgid(0, 0)
                        for call in (lambda: os.setpgid(0, {decoy.pid}), lambda: os.killpg({decoy.pid}, signal.SIGKILL),
                                     lambda: os.kill(-{decoy.pid}, signal.SIGKILL), lambda: os.kill(0, 0)):
                            try:
                                call()
                            except OSError:
                                code += 1
                    finally:
                        os._exit(code)
                _pid, status = os.waitpid(child, 0)
                out.append("child:" + str(os.waitstatus_to_exitcode(status)))
                attempt("killpg", lambda: os.killpg({decoy.pid}, signal.SIGKILL))
                print(out)
        """)
        ok(trace)
        assert "'getpgid:ProcessLookupError'" in trace.output, trace.output
        assert "'child:3'" in trace.output, trace.output  # three refused, kill(0, 0) in its own group fine
        assert "'killpg:ProcessLookupError'" in trace.output, trace.output
        assert decoy.poll() is None  # the decoy is alive
    finally:
        decoy.kill()
        decoy.wait()


def test_server_killed_from_outside_breaks_one_run_only(reduced):
    import signal
    import threading

    def kill_soon():
        import time
        time.sleep(0.5)
        os.killpg(reduced.process.pid, signal.SIGKILL)

    threading.Thread(target=kill_soon).start()
    trace = run(reduced, "import time\ndef save_checkpoint(state): time.sleep(5)", timeout=8)
    assert trace.end == "broken"
    trace = run(reduced, "def save_checkpoint(state): open('x', 'w').write('ok')")
    ok(trace)
    assert final(trace, "x") == b"ok"


def test_dup2_race_is_recorded_against_the_right_file(sandbox):
    trace = run(sandbox, """
        import threading
        def save_checkpoint(state):
            a = os.open("a", os.O_WRONLY | os.O_CREAT, 0o644)
            b = os.open("b", os.O_WRONLY | os.O_CREAT, 0o644)
            fd = os.dup(a)
            stop = False
            def swap():
                while not stop:
                    os.dup2(b, fd)
                    os.dup2(a, fd)
            t = threading.Thread(target=swap)
            t.start()
            for i in range(300):
                os.write(fd, b"%d," % i)
            stop = True
            t.join()
    """)
    ok(trace)
    for name in ("a", "b"):
        assert written(trace, node_at(trace, name)) == final(trace, name)
    assert len(final(trace, "a")) + len(final(trace, "b")) >= len("".join(f"{i}," for i in range(300)))


def test_runs_asked_from_many_threads_each_get_their_own_trace(sandbox):
    from concurrent.futures import ThreadPoolExecutor

    def one(n):
        # Shorter runs asked later: without turns, replies come back in another order than asked.
        trace = run(sandbox, f"import time\ntime.sleep({0.05 * (6 - n)})\nprint('aluno-{n}')\n")
        return n, trace.output.strip()

    with ThreadPoolExecutor(max_workers=6) as pool:
        got = list(pool.map(one, range(6)))
    assert got == [(n, f"aluno-{n}") for n in range(6)]


def test_garbage_on_the_channel_is_a_protocol_end(sandbox):
    trace = run(sandbox, """
        def save_checkpoint(state):
            os.write(3, b"isto nao e json\\n")
    """)
    assert trace.end == "protocol"


def test_forged_end_changes_nothing_trusted(sandbox):
    trace = run(sandbox, """
        def save_checkpoint(state):
            os.write(3, b'{"t": "end", "kind": "ok", "phase": "call"}\\n')
            os._exit(0) if False else None
            raise RuntimeError("escondido")
    """)
    assert trace.end == "exit" and trace.code == 1


def _only_the_warm_interpreter(pids: list[int], isolated: bool) -> bool:
    """Between runs, under the sandbox's process: bubblewrap's init and the server (isolated), and
    the warm interpreter (kernel/zygote.py), whose runs are all gone."""
    return len(pids) == 1 + 2 * isolated and sum(map(is_warm_interpreter, pids)) == 1


def _descendants(pid: int) -> list[int]:
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


@pytest.mark.parametrize("body", [
    "def save_checkpoint(state):\n    while True: pass\n",
    "def save_checkpoint(state):\n    while True:\n        try: os.fork()\n        except OSError: pass\n",
])
def test_timeouts_leave_no_process(sandbox, body):
    before = len(_descendants(sandbox.process.pid)) if sandbox.process else None
    trace = run(sandbox, body, timeout=2)
    assert trace.end == "timeout"
    left = _descendants(sandbox.process.pid)
    assert _only_the_warm_interpreter(left, sandbox.isolated), left
    if before is not None:
        assert len(left) == before
    ok(run(sandbox, "def save_checkpoint(state): pass"))


def test_nothing_survives_between_runs(sandbox):
    trace = run(sandbox, """
        import subprocess, tempfile
        def save_checkpoint(state):
            open("deixado", "w").write("x")
            open(os.path.join(tempfile.gettempdir(), "tmp-deixado"), "w").write("x")
            open(os.path.expanduser("~/.marca"), "w").write("x")
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    """)
    ok(trace)
    trace = run(sandbox, """
        import tempfile
        def save_checkpoint(state):
            print(sorted(os.listdir(".")), sorted(os.listdir(tempfile.gettempdir())), os.path.exists(os.path.expanduser("~/.marca")))
    """)
    ok(trace)
    assert trace.output.strip() == "[] [] False"
    left = _descendants(sandbox.process.pid)
    assert _only_the_warm_interpreter(left, sandbox.isolated), left


@pytest.fixture
def open_folder():
    """A folder and file anyone may write, so the supervisor's own fence is what refuses, not the
    permissions (reduced mode started as root runs the submission as another user). Neither in /tmp
    nor in /dev/shm: a run has its own of each (the machine's are never reached by those names)."""
    folder = tempfile.mkdtemp(prefix="fora-", dir="/var/tmp" if os.path.isdir("/var/tmp") else None)
    os.chmod(folder, 0o777)
    yield pathlib.Path(folder)
    shutil.rmtree(folder, ignore_errors=True)


def test_reduced_mode_refuses_writes_outside_the_roots(reduced, open_folder):
    tmp_path = open_folder
    outside = tmp_path / "fora.txt"
    outside.write_text("intacto")
    outside.chmod(0o666)
    trace = run(reduced, f"""
        def save_checkpoint(state):
            for action in (lambda: open({str(outside)!r}, "w"), lambda: os.unlink({str(outside)!r}),
                           lambda: os.rename({str(outside)!r}, "roubado"), lambda: os.chmod({str(outside)!r}, 0o777),
                           lambda: os.mkdir({str(tmp_path / 'nova')!r}), lambda: os.truncate({str(outside)!r}, 0)):
                try:
                    action()
                    print("passou")
                except OSError as exc:
                    print("recusado", exc.errno)
            print([l for l in open("/proc/self/status") if l.startswith("CapEff")][0])
    """)
    ok(trace)
    assert "passou" not in trace.output and "CapEff:\t0000000000000000" in trace.output
    assert outside.read_text() == "intacto" and not (tmp_path / "nova").exists()
    assert oct(outside.stat().st_mode & 0o777) != oct(0o777)
    assert len(events(trace, "refused")) == 6


def test_fingerprints_look_like_a_students_machine(isolated):
    trace = run(isolated, """
        import pwd, socket
        def save_checkpoint(state):
            print(os.getuid(), os.getgid(), pwd.getpwuid(os.getuid()).pw_name, os.environ["HOME"],
                  os.environ["USER"], sys.flags.isolated, sys.flags.no_site, sys.flags.dont_write_bytecode,
                  os.path.basename(os.getcwd()), socket.gethostname(), sys.argv[0], sys.stdout.fileno(),
                  __name__)
    """)
    ok(trace)
    assert trace.output.split() == ["1000", "1000", "aluno", "/home/aluno", "aluno", "0", "0", "0", "projeto",
                                    "notebook", "aluno.py", "1", "solucao"]


def test_run_agent_reference_solution(sandbox):
    from graders.fake_agent import TASK, script

    source = open(os.path.join(os.path.dirname(__file__), "..", "..", "exercises", "nivel-2", "solution.py")).read()
    trace = sandbox.run(source, "solution.py", {"function": "run_agent", "task": TASK, "tools": script()["tools"]}, 10)
    ok(trace)
    assert [e.call for e in events(trace, "model")] == [1, 2, 3]
    assert [e.payload["name"] for e in events(trace, "tool")] == ["buscar_tickets", "gravar_tabela"]
    kinds = [e.kind for e in trace.events if e.kind in ("model", "tool", "rename")]
    assert kinds == ["model", "rename", "tool", "rename", "model", "rename", "tool", "rename", "model"]


def test_filter_builds_for_this_architecture():
    assert kernel.syscall_nr("openat") is not None and kernel.syscall_nr("no_such_call") is None
    assert len(kernel._build_filter(True)) % 8 == 0


def test_flood_and_runaway_ends(sandbox):
    trace = run(sandbox, """
        def save_checkpoint(state):
            while True:
                print("x" * 1000)
    """)
    assert trace.end == "flood" and len(trace.output) < 21_000
    from graders.fake_agent import TASK, script

    trace = sandbox.run("def run_agent(task, tools, call_model, execute_tool):\n"
                        "    while True:\n        call_model(tools=tools, messages=[])\n",
                        "aluno.py", {"function": "run_agent", "task": TASK, "tools": script()["tools"]}, 10)
    assert trace.end == "runaway" and trace.limits.get("model_calls") == 20


def test_bytes_sent_around_the_emulated_write_are_a_protocol_end(sandbox):
    trace = run(sandbox, """
        import socket
        def save_checkpoint(state):
            socket.socket(fileno=os.dup(3)).send(b'{"t": "returned"}\\n')
            import time; time.sleep(2)
    """)
    assert trace.end == "protocol"


def test_signals_during_writes_never_duplicate_them(sandbox):
    trace = run(sandbox, """
        import signal
        def save_checkpoint(state):
            hits = []
            signal.signal(signal.SIGALRM, lambda *a: hits.append(1))
            signal.setitimer(signal.ITIMER_REAL, 0.0005, 0.0005)
            fd = os.open("f", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            for i in range(400):
                os.write(fd, b"%d;" % i)
            signal.setitimer(signal.ITIMER_REAL, 0)
            print(len(hits) > 0)
    """)
    ok(trace)
    expected = "".join(f"{i};" for i in range(400)).encode()
    assert final(trace, "f") == expected == written(trace, node_at(trace, "f"))


def test_multithreaded_outside_the_roots_is_refused_never_performed(isolated):
    trace = run(isolated, """
        import threading
        def save_checkpoint(state):
            t = threading.Thread(target=lambda: __import__("time").sleep(0.5))
            t.start()
            try:
                open("/proc/self/attr/current", "w")
            except OSError as exc:
                print("recusado", exc.errno)
            t.join()
    """)
    ok(trace)
    assert "recusado 13" in trace.output
    assert [e.payload["call"] for e in events(trace, "refused")] == ["open"]


def test_reopen_through_proc_self_fd_is_followed(sandbox):
    trace = run(sandbox, """
        def save_checkpoint(state):
            open("checkpoint.json", "w").write("antes")
            fd = os.open("checkpoint.json", os.O_RDONLY)
            w = os.open("/proc/self/fd/%d" % fd, os.O_WRONLY)
            os.pwritev(w, [b"DEPOIS"], 0)
            tmp = os.open(".", os.O_TMPFILE | os.O_RDWR, 0o600)
            try:
                os.open("/proc/self/fd/%d" % tmp, os.O_WRONLY)
            except OSError as exc:
                print("recusado", exc.errno)
    """)
    ok(trace)
    node = node_at(trace, "checkpoint.json")
    reopened = [e for e in events(trace, "open") if e.node == node]
    assert len(reopened) == 2 and not reopened[1].created
    assert final(trace, "checkpoint.json") == b"DEPOIS" == written(trace, node)
    assert "recusado 13" in trace.output


@pytest.fixture(params=["isolated", "separate", "same"])
def temp_layout(request, monkeypatch):
    """bubblewrap mode, or reduced mode with its temp folder on another file system than its home
    (the machine's temp folder), or on the same one (the supervisor must answer EXDEV itself)."""
    if request.param == "same":
        monkeypatch.setattr(tempfile, "tempdir", "/dev/shm" if os.path.isdir("/dev/shm") else None)
    if request.param == "isolated" and not _bwrap_works():
        pytest.skip("bwrap indisponível")
    box = Sandbox(isolated=request.param == "isolated")
    yield box
    box.close()


def test_the_temp_folder_is_another_file_system_in_every_mode(temp_layout):
    """Under bubblewrap, /tmp is a tmpfs of its own: a checkpoint written there and then moved or
    linked into the work folder fails with EXDEV (shutil.move then copies, which a crash can tear).
    Reduced mode must give the same answer, and record the same failed calls."""
    trace = run(temp_layout, """
        import errno, tempfile
        def save_checkpoint(state):
            fd, path = tempfile.mkstemp()
            os.write(fd, b"{}")
            os.close(fd)
            for call in (os.replace, os.rename, os.link):
                try:
                    call(path, "checkpoint.json")
                    print(call.__name__, "passou")
                except OSError as exc:
                    print(call.__name__, errno.errorcode[exc.errno])
            print(os.stat(tempfile.gettempdir()).st_dev == os.stat(".").st_dev)
    """)
    ok(trace)
    lines = trace.output.split("\n")
    assert lines[:3] == ["replace EXDEV", "rename EXDEV", "link EXDEV"], trace.output
    failed = [e for e in events(trace, "rename") + events(trace, "link") if not e.ok]
    assert len(failed) >= 3 and all(e.errno == "EXDEV" for e in failed)
    assert not any(name == "checkpoint.json" for name in (e.name2 for e in events(trace, "rename") if e.ok))


def test_a_process_whose_first_thread_exited_still_writes(sandbox):
    """A process of the run whose first thread has ended (the raw exit of that thread alone) while
    another goes on: its descriptors are reached through the calling thread (target._thread_getfd),
    so its write after the runner returned is traced and performed, not refused."""
    trace = run(sandbox, """
        import ctypes, threading, time
        def save_checkpoint(state):
            if os.fork() == 0:
                def later():
                    time.sleep(0.5)
                    with open("checkpoint.json", "w") as f:
                        f.write("tarde")
                    os._exit(0)
                threading.Thread(target=later).start()
                ctypes.CDLL(None).syscall(60, 0)  # exit(2): this thread only
    """, timeout=5)
    ok(trace)
    writes = [e for e in trace.events if e.kind == "write"]
    assert [e.data for e in writes] == [b"tarde"], trace.events
    assert trace.final[os.path.join(trace.root("work").path, "checkpoint.json")] == b"tarde"


def test_a_mapping_of_a_process_whose_first_thread_exited_is_still_followed(sandbox):
    """The same process writing through a shared mapping: /proc/<pid>/maps of a process whose first
    thread has ended reads empty, so the maps are read through another thread's; the mapping is not
    taken for gone at the rename before the store, and the store becomes a write of the trace."""
    trace = run(sandbox, """
        import ctypes, mmap, threading, time
        def save_checkpoint(state):
            if os.fork() == 0:
                fd = os.open("checkpoint.json", os.O_RDWR | os.O_CREAT, 0o644)
                os.ftruncate(fd, 5)
                view = mmap.mmap(fd, 5)
                def later():
                    time.sleep(0.3)
                    open("outro", "w").close()
                    os.rename("outro", "nome")  # mappings no process holds are dropped here
                    view[:] = b"tarde"
                    time.sleep(0.3)
                    os._exit(0)
                threading.Thread(target=later).start()
                ctypes.CDLL(None).syscall(60, 0)  # exit(2): this thread only
    """, timeout=5)
    ok(trace)
    stored = b"".join(e.data for e in trace.events if e.kind == "write" and e.data)
    assert b"tarde" in stored, trace.events


def test_a_clone_into_new_namespaces_is_refused_with_an_event(sandbox):
    """clone asking for namespaces of its own fails as unshare does, and says so in the trace (the judge
    then fails executavel: the run a student's machine would make was not seen); a plain fork runs."""
    trace = run(sandbox, """
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        def save_checkpoint(state):
            pid = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)  # clone(CLONE_NEWUSER | SIGCHLD)
            if pid == 0:
                os._exit(0)
            print(pid, ctypes.get_errno())
            # In our memory as our parent's child: the vfork links mappings.py follows would miss it.
            shared = libc.syscall(56, 0x100 | 0x4000 | 0x8000 | 17, 0, 0, 0, 0)  # CLONE_VM|VFORK|PARENT
            print(shared, ctypes.get_errno())
            child = os.fork()
            if child == 0:
                os._exit(0)
            print(os.waitpid(child, 0)[1])
    """)
    ok(trace)
    assert trace.output.split() == ["-1", "1", "-1", "1", "0"]  # EPERM twice, then a fork that exits 0
    refused = events(trace, "refused")
    assert [e.payload["call"] for e in refused] == ["clone", "clone"]
    assert "namespaces" in refused[0].payload["message"] and "CLONE_PARENT" in refused[1].payload["message"]
