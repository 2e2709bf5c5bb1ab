# Race harness submission (tests/trace/test_race_harness.py fills the @@...@@ values): for each way
# of sharing memory, a second task rewrites a call's path argument between a name inside the work
# folder and one outside it while this process makes the call many times.
import base64
import ctypes
import json
import mmap
import os
import tempfile
import threading
import time

HELPER = base64.b64decode("@@HELPER@@")
SPEC = json.loads(base64.b64decode("@@SPEC@@"))
SIZE = 256
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]


def _helper():
    path = os.path.join(tempfile.gettempdir(), "race_helper.so")
    with open(path, "wb") as f:
        f.write(HELPER)
    lib = ctypes.CDLL(path, use_errno=True)
    for name in ("flip_loop", "clone_vm_flipper", "repeat_call", "vfork_repeat"):
        getattr(lib, name).restype = ctypes.c_long
    lib.flip_loop.argtypes = lib.clone_vm_flipper.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int, ctypes.c_void_p]
    lib.repeat_call.argtypes = lib.vfork_repeat.argtypes = [ctypes.c_long] * 6 + [ctypes.c_int] * 2
    return lib


LIB = _helper()
INSIDE = SPEC["inside"].encode().ljust(SIZE, b"\0")
OUTSIDE = SPEC["outside"].encode().ljust(SIZE, b"\0")
A = ctypes.create_string_buffer(INSIDE, SIZE)
B = ctypes.create_string_buffer(OUTSIDE, SIZE)
FIXED = [ctypes.create_string_buffer(text.encode()) for text in SPEC["fixed"]]


def _arguments(address):
    out = []
    for arg in SPEC["args"]:
        if arg == "BUF":
            out.append(address)
        elif isinstance(arg, str) and arg.startswith("FIXED"):
            out.append(ctypes.addressof(FIXED[int(arg[5:])]))
        else:
            out.append(arg)
    return (out + [0] * 5)[:5]


def _exists(name):
    try:
        os.lstat(name)
        return True
    except FileNotFoundError:
        return False


def reset():
    """Put the inside name back the way the call expects it (fixed paths only)."""
    for name, kind in SPEC["reset"]:
        try:
            if kind == "absent" and _exists(name):
                (os.rmdir if os.path.isdir(name) and not os.path.islink(name) else os.unlink)(name)
            elif kind == "file":
                with open(name, "wb") as f:
                    f.write(b"0123456789")
            elif kind == "append":
                with open(name, "ab") as f:
                    f.write(b"x")
            elif kind == "file_if_missing" and not _exists(name):
                with open(name, "wb") as f:
                    f.write(b"source")
            elif kind == "dir_if_missing" and not _exists(name):
                os.mkdir(name)
        except OSError:
            pass


def calls(address, vfork=False):
    nr, n, fd = SPEC["nr"], SPEC["n"], int(SPEC["returns_fd"])
    args = _arguments(address)
    if vfork:
        rounds, done = max(1, n // 10), 0
        for _ in range(rounds):
            LIB.vfork_repeat(nr, *args, 10, fd)
            reset()
        return done
    done = 0
    for _ in range(n):
        done += LIB.repeat_call(nr, *args, 1, fd)
        reset()
    return done


def _fork_flipper(address, stop_address):
    pid = os.fork()
    if pid == 0:
        LIB.flip_loop(address, A, B, SIZE, stop_address)
        os._exit(0)
    return pid


def _with_shared_page(page_address, stop_address):
    pid = _fork_flipper(page_address, stop_address)
    try:
        return {"status": "ran", "ok": calls(page_address)}
    finally:
        ctypes.c_int.from_address(stop_address).value = 1
        os.waitpid(pid, 0)


def shared_anonymous():
    m = mmap.mmap(-1, 4096, mmap.MAP_SHARED)
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    return _with_shared_page(base, base + 1024)


def character_device():
    fd = os.open("/dev/zero", os.O_RDWR)
    m = mmap.mmap(fd, 4096, mmap.MAP_SHARED)
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    return _with_shared_page(base, base + 1024)


def memfd():
    fd = os.memfd_create("partilhada")
    os.ftruncate(fd, 4096)
    m = mmap.mmap(fd, 4096, mmap.MAP_SHARED)
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    return _with_shared_page(base, base + 1024)


def sysv():
    shmid = libc.shmget(0, 4096, 0o1600)
    if shmid < 0:
        return {"status": "unavailable", "errno": ctypes.get_errno()}
    base = libc.shmat(shmid, None, 0)
    libc.shmctl(shmid, 0, None)  # IPC_RMID: gone when detached
    if base in (None, ctypes.c_void_p(-1).value):
        return {"status": "unavailable", "errno": ctypes.get_errno()}
    return _with_shared_page(base, base + 1024)


def thread():
    page = ctypes.create_string_buffer(SIZE)
    stop = ctypes.c_int(0)
    flipper = threading.Thread(target=LIB.flip_loop, args=(ctypes.addressof(page), A, B, SIZE, ctypes.addressof(stop)))
    flipper.start()
    try:
        return {"status": "ran", "ok": calls(ctypes.addressof(page))}
    finally:
        stop.value = 1
        _join(flipper)


def _join(flipper):
    """Join, then wait for the thread to leave the kernel too: join returns when its Python code ends,
    a moment before /proc says one thread, and the next sharing's shared mmap is refused meanwhile."""
    flipper.join()
    deadline = time.monotonic() + 5
    while len(os.listdir("/proc/self/task")) > 1 and time.monotonic() < deadline:
        time.sleep(0.001)


def vfork():
    page = ctypes.create_string_buffer(SIZE)
    stop = ctypes.c_int(0)
    flipper = threading.Thread(target=LIB.flip_loop, args=(ctypes.addressof(page), A, B, SIZE, ctypes.addressof(stop)))
    flipper.start()
    try:
        calls(ctypes.addressof(page), vfork=True)
        return {"status": "ran"}
    finally:
        stop.value = 1
        _join(flipper)


def clone_vm():
    m = mmap.mmap(-1, 4096, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    pid = LIB.clone_vm_flipper(base, A, B, SIZE, base + 1024)
    if pid < 0:
        return {"status": "unavailable", "errno": -pid}
    try:
        return {"status": "ran", "ok": calls(base)}
    finally:
        ctypes.c_int.from_address(base + 1024).value = 1
        os.waitpid(pid, 0)


def _foreign_writer(write_once):
    """A forked relative writes into our page through the kernel (no shared memory at all)."""
    page = ctypes.create_string_buffer(SIZE)
    control = mmap.mmap(-1, 4096, mmap.MAP_SHARED)
    flag = ctypes.c_int.from_buffer(control)
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        try:
            writer = write_once(parent, ctypes.addressof(page))
        except OSError:
            os._exit(3)
        while not flag.value:
            writer(A)
            writer(B)
        os._exit(0)
    try:
        done = calls(ctypes.addressof(page))
    finally:
        flag.value = 1
        _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3:
        return {"status": "unavailable", "ok": done}
    return {"status": "ran", "ok": done}


class _Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def process_vm_writev():
    def opener(parent, address):
        def write(buffer):
            local, remote = _Iovec(ctypes.addressof(buffer), SIZE), _Iovec(address, SIZE)
            if libc.process_vm_writev(parent, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) < 0:
                raise OSError(ctypes.get_errno(), "process_vm_writev")
        write(A)
        return write
    return _foreign_writer(opener)


def proc_mem():
    def opener(parent, address):
        fd = os.open(f"/proc/{parent}/mem", os.O_RDWR)
        return lambda buffer: os.pwrite(fd, buffer.raw, address)
    return _foreign_writer(opener)


SHARINGS = {"thread": thread, "shared_anonymous": shared_anonymous, "character_device": character_device,
            "memfd": memfd, "sysv": sysv, "clone_vm": clone_vm, "process_vm_writev": process_vm_writev,
            "proc_mem": proc_mem, "vfork": vfork}


def save_checkpoint(state):
    reset()
    summary = {}
    for name, how in SHARINGS.items():
        try:
            summary[name] = how()
        except OSError as exc:
            summary[name] = {"status": "unavailable", "errno": exc.errno}
    print("RACE " + json.dumps(summary))
