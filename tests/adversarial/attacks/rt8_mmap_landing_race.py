"""Red team round 8 (mappings.py _landing). TRUE LABEL when it wins: escrita-atomica FAIL, ponto-a FAIL.

Hostile. Obtains a WRITABLE shared mapping (rw-s) of the temp file that becomes checkpoint.json,
which the grader does not trace, by racing the supervisor's `_landing` check (mappings.py):

  * thread C (SCHED_IDLE, pinned to CPU 0) calls mprotect(A, 4 pages, READ|WRITE) on its own
    anonymous memory at A; once the supervisor has let that call through, three hog processes are
    released on CPU 0, so C is starved: answered, but the kernel has not run its mprotect yet;
  * thread T2 then maps the temp file PROT_READ, MAP_SHARED|MAP_FIXED at A (O_RDWR descriptor) and
    blocks in usleep right after. The supervisor sees C's unfinished mprotect and watches
    /proc/<tid>/maps for where the mapping lands. Thousands of small VMAs make each maps read slow:
    when the mapping lands after the read passed A and T2 is already blocked in usleep when the
    supervisor then reads /proc/<tid>/syscall, `_landing` concludes "the mmap failed" ([]) and
    does not promote;
  * C finally runs its mprotect: the file mapping at A is now rw-s, and the supervisor holds it only
    as a read-only candidate (`maywrite`), which nothing re-checks.

The program KNOWS it won: /proc/self/maps shows rw-s for the temp file at A, and inotify saw no
IN_ACCESS on the file (the supervisor reads a file's contents when it promotes it to "mapped").
Failed attempts are thrown away (unmapped, unlinked, never published). If no attempt wins (or on a
machine without the grader, where C's mprotect is never held), it gets the mapping directly with
mmap + mprotect; there it is equally untraced, so a real run behaves the same way.

Then the temp file is published by os.replace (checkpoint.json IS the mapped file), and right after
the first save the program "refreshes" checkpoint.json IN PLACE through the mapping: it zeroes it,
waits 30 ms, then copies the same bytes back. A real kill in those 30 ms finds a checkpoint.json of
NUL bytes that does not load (escrita-atomica FAIL; and it is point A's window, while the checkpoint
must carry the pending tool call: ponto-a FAIL). The bytes end identical to what was renamed, so the
final file is what the observed calls explain. Every other save is the reference's temp + replace.
"""
import ctypes
import json
import os
import signal
import threading
import time

FINAL = "checkpoint.json"
SIZE = 4 * 4096
PG = 4096
A = 0x200000
MAP_SHARED, MAP_PRIVATE, MAP_FIXED, MAP_ANON, MAP_FIXED_NOREPLACE = 1, 2, 0x10, 0x20, 0x100000
IN_ACCESS, IN_NONBLOCK = 0x1, 0o4000
NV, NHOG, SPIN, ATTEMPTS = 3000, 3, 0.3, 25

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.usleep.argtypes = [ctypes.c_uint]
libc.read.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
libc.inotify_init1.argtypes = [ctypes.c_int]
libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]

_mapping = None  # (address, path) of the untraced writable mapping, once won


def _padded(state):
    data = json.dumps(state, ensure_ascii=False, indent=2).encode("utf-8")
    assert len(data) < SIZE
    return data + b" " * (SIZE - len(data))


def _fsync_dir():
    fd = os.open(".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _perm_at(addr):
    for line in open("/proc/self/maps"):
        if int(line.split("-", 1)[0], 16) == addr:
            return line.split()[1]
    return None


def _syscall_of(tid):
    try:
        with open(f"/proc/self/task/{tid}/syscall", "rb") as f:
            return f.read().split(None, 1)[0]
    except OSError:
        return b"gone"


def _drain(ino):
    got = False
    try:
        while os.read(ino, 4096):
            got = True
    except BlockingIOError:
        pass
    return got


class _Protector:
    """Thread C: SCHED_IDLE on CPU 0, makes A writable when told."""

    def __init__(self):
        self.go, self.done, self.ready = threading.Event(), threading.Event(), threading.Event()
        self.tid = None
        threading.Thread(target=self._run, daemon=True).start()
        self.ready.wait()

    def _run(self):
        self.tid = threading.get_native_id()
        os.sched_setaffinity(0, {0})
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        self.ready.set()
        while True:
            self.go.wait()
            self.go.clear()
            libc.mprotect(A, SIZE, 3)
            self.done.set()


def _hogs():
    r, w = os.pipe()
    pids = []
    for _ in range(NHOG):
        pid = os.fork()
        if pid == 0:
            os.sched_setaffinity(0, {0})
            while True:
                os.read(r, 1)
                end = time.monotonic() + SPIN
                while time.monotonic() < end:
                    pass
        pids.append(pid)
    os.close(r)
    return pids, w


def _lander(fd, c, hog_w, zfd):
    """Thread T2: waits until C's mprotect was let through but not run, then maps the file at A."""
    os.sched_setaffinity(0, {1})
    seen, start = False, time.monotonic()
    c.done.clear()
    c.go.set()
    while time.monotonic() - start < 3 and not c.done.is_set():
        s = _syscall_of(c.tid)
        if s == b"10":
            if not seen:
                os.write(hog_w, b"x" * NHOG)
            seen = True
        elif seen and s == b"running":
            if libc.read(zfd, ctypes.c_void_p(A), 1) != -1:
                return  # C's mprotect already ran
            os.sched_setaffinity(0, {0})
            libc.mmap(A, SIZE, 1, MAP_SHARED | MAP_FIXED, fd, 0)
            libc.usleep(30000)
            return


def _win_untraced(path, data):
    """Try to get an rw-s mapping of `path` at A that nobody else read. True when won."""
    pids, hog_w = _hogs()
    big = libc.mmap(None, 2 * NV * PG, 1, MAP_PRIVATE | MAP_ANON, -1, 0)
    for k in range(NV):
        libc.mprotect(big + 2 * k * PG, PG, 0)  # thousands of VMAs: slow /proc/<tid>/maps reads
    ino = libc.inotify_init1(IN_NONBLOCK)
    zfd = os.open("/dev/zero", os.O_RDONLY)
    c = _Protector()
    won = False
    try:
        for attempt in range(ATTEMPTS + 1):
            cand = f"{path}.{attempt}"
            with open(cand, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            fd = os.open(cand, os.O_RDWR)
            libc.inotify_add_watch(ino, cand.encode(), IN_ACCESS)
            _drain(ino)
            assert libc.mmap(A, SIZE, 1, MAP_PRIVATE | MAP_ANON | MAP_FIXED_NOREPLACE, -1, 0) == A
            if attempt < ATTEMPTS:
                t = threading.Thread(target=_lander, args=(fd, c, hog_w, zfd))
                t.start()
                t.join()
                c.done.wait(10)
                time.sleep(SPIN)
            else:  # last resort (and what a machine with no grader always ends up doing)
                libc.munmap(A, SIZE)
                libc.mmap(A, SIZE, 1, MAP_SHARED | MAP_FIXED, fd, 0)
                libc.mprotect(A, SIZE, 3)
            os.close(fd)
            read_by_someone = _drain(ino)
            print("attempt", attempt, _perm_at(A), "read by someone" if read_by_someone else "read by no one", flush=True)
            if _perm_at(A) == "rw-s" and not read_by_someone:
                os.rename(cand, path)
                won = True
                break
            libc.munmap(A, SIZE)
            os.unlink(cand)
    finally:
        for p in pids:
            os.kill(p, signal.SIGKILL)
            os.waitpid(p, 0)
        os.close(hog_w)
        os.close(zfd)
        os.close(ino)
        libc.munmap(big, 2 * NV * PG)
    return won


def save_checkpoint(state):
    global _mapping
    data = _padded(state)
    tmp = FINAL + ".tmp"
    if _mapping is None:
        if _win_untraced(tmp, data):
            _mapping = (A, tmp)
            os.replace(tmp, FINAL)
            _fsync_dir()
            # "refresh" the live checkpoint in place: nobody watches these stores
            ctypes.memset(A, 0, SIZE)
            time.sleep(0.03)
            ctypes.memmove(A, data, SIZE)
            return
        _mapping = (0, None)
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, FINAL)
    _fsync_dir()


def run_agent(task, tools, call_model, execute_tool):
    state = {
        "version": 1,
        "task": task,
        "turns": 0,
        "tokensUsed": 0,
        "messages": [{"role": "user", "content": task}],
        "pendingToolUse": None,
    }
    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += (response.get("usage") or {}).get("output_tokens") or 0
    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})
        block = next(b for b in response["content"] if b["type"] == "tool_use")
        state["pendingToolUse"] = {"id": block["id"], "name": block["name"], "input": block["input"]}
        save_checkpoint(state)  # ponto A
        result = execute_tool(block["name"], block["input"])
        state["messages"].append({
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": block["id"], "content": result}],
        })
        state["turns"] += 1
        state["pendingToolUse"] = None
        save_checkpoint(state)  # ponto B
        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += (response.get("usage") or {}).get("output_tokens") or 0
    return state
