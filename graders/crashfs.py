"""Simulated crashes: trace every file-system step of student code and kill it at a chosen one.

While a `FileSystemTracer` is installed, `open`, `os.open/write/close/fsync/replace/...`
and everything built on them (pathlib, tempfile, shutil) go through it. Each step is an
*operation*; a `CrashPlan` makes the tracer raise `SimulatedCrash` before operation N,
or in the middle of a write after K bytes. From then on the "process" is dead: nothing
more reaches the disk, and data still in Python's buffers is lost, as after a kill.
"""

from __future__ import annotations

import builtins
import errno
import io
import locale
import os
import posixpath
import sys
import types
import weakref
from dataclasses import dataclass, field

# Captured at import, before any student code runs; read-only from then on.
_real = types.MappingProxyType({
    "io_open": io.open,
    "os_open": os.open,
    "os_write": os.write,
    "os_close": os.close,
    "os_fsync": os.fsync,
    "os_fdatasync": getattr(os, "fdatasync", None),
    "os_replace": os.replace,
    "os_rename": os.rename,
    "os_remove": os.remove,
    "os_unlink": os.unlink,
    "os_truncate": os.truncate,
    "os_ftruncate": os.ftruncate,
    "os_mkdir": os.mkdir,
    "os_rmdir": os.rmdir,
    "os_lseek": os.lseek,
    "os_read": os.read,
    "os_fspath": os.fspath,
    "os_getcwd": os.getcwd,
    "os_pwrite": getattr(os, "pwrite", None),
})
_posix = sys.modules.get("posix") or sys.modules.get("nt")

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
BUFFER_SIZE = 8192  # io.DEFAULT_BUFFER_SIZE: when Python itself would push the buffer to the OS


class SimulatedCrash(BaseException):
    """The process died at this point. A BaseException, so `except Exception` does not stop it."""


class TooManyOperations(BaseException):
    """The code did far more file-system work than a checkpoint needs (or loops)."""


@dataclass
class Op:
    index: int
    kind: str  # open, write, fsync, close, replace, rename, remove, truncate, mkdir, rmdir, tool
    path: str
    target: str = ""
    size: int = 0
    tool_call: int = 0


@dataclass(frozen=True)
class CrashPlan:
    op_index: int
    # None: crash just before the operation; K: a write torn after K bytes.
    torn_at: int | None = None


@dataclass
class RenameRecord:
    op: Op
    # Bytes still in a Python buffer of a file open on the source: lost if the process dies.
    unflushed: int
    still_open: bool
    fsynced: bool


@dataclass
class _Handle:
    path: str
    fsynced: bool = False
    dirty: bool = False  # written since the last fsync


@dataclass
class Trace:
    ops: list[Op] = field(default_factory=list)
    renames: list[RenameRecord] = field(default_factory=list)
    crashed_at: Op | None = None
    torn_at: int | None = None


class FileSystemTracer:
    """Installs itself over the file-system functions; one instance per run of student code."""

    def __init__(self, root: str, plan: CrashPlan | None = None, max_ops: int = 2000, on_op=None):
        self.root = root
        self.plan = plan
        self.max_ops = max_ops
        self.on_op = on_op  # called before each operation (reference run: disk snapshots)
        self.trace = Trace()
        self.dead = False
        self.handles: dict[int, _Handle] = {}
        # Weak: a file object nobody references is closed (and flushed) at once, as in CPython.
        self.open_files: weakref.WeakSet[TracedFile] = weakref.WeakSet()
        self._fsynced_closed: set[str] = set()  # paths fsynced, then closed clean
        self._saved: list[tuple[object, str, object]] = []
        self._in_real = 0
        # File-system changes that did not go through the traced functions (audit hook).
        self.bypasses: list[str] = []
        # Attempts of the student's code to reach frames or the object graph (audit hook).
        self.student_file = ""
        self.introspection: list[str] = []

    # --- bookkeeping -------------------------------------------------------------------

    def abspath(self, path) -> str:
        path = _real["os_fspath"](path)
        if isinstance(path, bytes):
            path = path.decode("utf-8", "surrogateescape")
        return posixpath.normpath(posixpath.join(_real["os_getcwd"](), path))

    def relpath(self, path: str) -> str:
        return posixpath.relpath(path, self.root) if path.startswith(self.root) else path

    def step(self, kind: str, path: str, target: str = "", size: int = 0, tool_call: int = 0) -> Op:
        """Register an operation; crash here if the plan says so (before it happens)."""
        if self.dead:
            raise SimulatedCrash()
        op = Op(len(self.trace.ops) + 1, kind, path, target, size, tool_call)
        if op.index > self.max_ops:
            self.dead = True
            raise TooManyOperations()
        self.trace.ops.append(op)
        if self.on_op is not None:
            self.on_op(op)
        if self.plan is not None and self.plan.op_index == op.index and self.plan.torn_at is None:
            self._die(op)
        return op

    def _die(self, op: Op, torn_at: int | None = None):
        self.dead = True
        self.trace.crashed_at = op
        self.trace.torn_at = torn_at
        for f in list(self.open_files):
            f._lose_buffer()
        raise SimulatedCrash()

    def check_alive(self):
        if self.dead:
            raise SimulatedCrash()

    # --- the intercepted operations ---------------------------------------------------

    def write_fd(self, fd: int, data: bytes, path: str, offset: int | None = None) -> int:
        op = self.step("write", path, size=len(data))
        if self.plan is not None and self.plan.op_index == op.index and self.plan.torn_at is not None:
            self._write_all(fd, data[: self.plan.torn_at], offset)
            self._die(op, self.plan.torn_at)
        self._write_all(fd, data, offset)
        handle = self.handles.get(fd)
        if handle is not None and data:
            handle.dirty = True
        return len(data)

    @staticmethod
    def _write_all(fd: int, data: bytes, offset: int | None = None):
        view = memoryview(data)
        while view:
            if offset is None:
                written = _real["os_write"](fd, view)
            else:
                written = _real["os_pwrite"](fd, view, offset)
                offset += written
            view = view[written:]

    def _sys(self, name, *args, **kwargs):
        """Call the real function; the audit hook knows this step is already traced."""
        self._in_real += 1
        try:
            return _real[name](*args, **kwargs)
        finally:
            self._in_real -= 1

    def os_open(self, path, flags, mode=0o777, *, dir_fd=None):
        if not flags & WRITE_FLAGS:
            return _real["os_open"](path, flags, mode, dir_fd=dir_fd)
        full = self.abspath(path)
        self.step("open", full)
        fd = self._sys("os_open", path, flags, mode, dir_fd=dir_fd)
        self.handles[fd] = _Handle(full)
        return fd

    def os_write(self, fd, data):
        if fd not in self.handles:
            self.check_alive()
            return _real["os_write"](fd, data)
        return self.write_fd(fd, bytes(data), self.handles[fd].path)

    def os_pwrite(self, fd, data, offset):
        if fd not in self.handles:
            self.check_alive()
            return _real["os_pwrite"](fd, data, offset)
        return self.write_fd(fd, bytes(data), self.handles[fd].path, offset)

    def os_writev(self, fd, buffers):
        return self.os_write(fd, b"".join(bytes(b) for b in buffers))

    def os_no_fast_copy(self, *args, **kwargs):
        # Kernel-side copies would bypass the write steps; shutil falls back to read/write.
        raise OSError(errno.EINVAL, "cópia no kernel desativada durante a correção")

    def os_close(self, fd):
        handle = self.handles.get(fd)
        if handle is None:
            self.check_alive()
            return _real["os_close"](fd)
        self.step("close", handle.path)
        del self.handles[fd]
        return self._sys("os_close", fd)

    def os_fsync(self, fd, _name="os_fsync"):
        fd = fd if isinstance(fd, int) else fd.fileno()
        handle = self.handles.get(fd)
        if handle is None:
            self.check_alive()
            return _real[_name](fd)
        self.step("fsync", handle.path)
        _real[_name](fd)
        handle.fsynced, handle.dirty = True, False

    def os_fdatasync(self, fd):
        return self.os_fsync(fd, "os_fdatasync")

    def _rename(self, kind: str, src, dst, **kwargs):
        src_full, dst_full = self.abspath(src), self.abspath(dst)
        unflushed = sum(len(f._buffer) for f in list(self.open_files) if f.path == src_full and not f.closed)
        still_open = any(h.path == src_full for h in self.handles.values())
        fsynced = any(h.path == src_full and h.fsynced and not h.dirty for h in self.handles.values()) or (
            src_full in self._fsynced_closed
        )
        op = self.step(kind, src_full, target=dst_full)
        self.trace.renames.append(RenameRecord(op, unflushed, still_open, fsynced))
        result = self._sys("os_" + kind, src, dst, **kwargs)
        # The renamed file keeps its open handles and its fsync state under the new name.
        for h in self.handles.values():
            if h.path == src_full:
                h.path = dst_full
        for f in list(self.open_files):
            if f.path == src_full:
                f.path = dst_full
        if src_full in self._fsynced_closed:
            self._fsynced_closed.discard(src_full)
            self._fsynced_closed.add(dst_full)
        return result

    def os_replace(self, src, dst, **kwargs):
        return self._rename("replace", src, dst, **kwargs)

    def os_rename(self, src, dst, **kwargs):
        return self._rename("rename", src, dst, **kwargs)

    def os_remove(self, path, *, dir_fd=None):
        self.step("remove", self.abspath(path))
        return self._sys("os_remove", path, dir_fd=dir_fd)

    def os_unlink(self, path, *, dir_fd=None):
        self.step("remove", self.abspath(path))
        return self._sys("os_unlink", path, dir_fd=dir_fd)

    def os_truncate(self, path, length):
        if isinstance(path, int):
            return self.os_ftruncate(path, length)
        self.step("truncate", self.abspath(path))
        return self._sys("os_truncate", path, length)

    def os_ftruncate(self, fd, length):
        handle = self.handles.get(fd)
        self.step("truncate", handle.path if handle else f"<fd {fd}>")
        return self._sys("os_ftruncate", fd, length)

    def os_mkdir(self, path, mode=0o777, *, dir_fd=None):
        self.step("mkdir", self.abspath(path))
        return self._sys("os_mkdir", path, mode, dir_fd=dir_fd)

    def os_rmdir(self, path, *, dir_fd=None):
        self.step("rmdir", self.abspath(path))
        return self._sys("os_rmdir", path, dir_fd=dir_fd)

    def os_exit(self, code=0):
        raise StudentExit(f"os._exit({code!r})")

    def io_open(self, file, mode="r", buffering=-1, encoding=None, errors=None, newline=None, closefd=True, opener=None):
        if not isinstance(mode, str):
            raise TypeError(f"open() argument 'mode' must be str, not {type(mode).__name__}")
        writing = any(c in mode for c in "wax+")
        if not writing:
            self.check_alive()
            return _real["io_open"](file, mode, buffering, encoding, errors, newline, closefd, opener)
        return TracedFile.open(self, file, mode, buffering, encoding, errors, newline, closefd, opener)

    # --- install / uninstall ----------------------------------------------------------

    def _patch(self, module, name, value):
        if module is None or not hasattr(module, name):
            return
        self._saved.append((module, name, getattr(module, name), value))
        setattr(module, name, value)

    def install(self):
        import _io

        for module in (builtins, io, _io):
            self._patch(module, "open", self.io_open)
        table = {
            "open": self.os_open,
            "write": self.os_write,
            "close": self.os_close,
            "fsync": self.os_fsync,
            "fdatasync": self.os_fdatasync,
            "replace": self.os_replace,
            "rename": self.os_rename,
            "remove": self.os_remove,
            "unlink": self.os_unlink,
            "truncate": self.os_truncate,
            "ftruncate": self.os_ftruncate,
            "mkdir": self.os_mkdir,
            "rmdir": self.os_rmdir,
            "_exit": self.os_exit,
            "pwrite": self.os_pwrite,
            "writev": self.os_writev,
            "sendfile": self.os_no_fast_copy,
            "copy_file_range": self.os_no_fast_copy,
            "splice": self.os_no_fast_copy,
        }
        for module in (os, _posix):
            for name, value in table.items():
                self._patch(module, name, value)
        _active.append(self)
        return self

    def active(self) -> bool:
        """Still the tracer the audit hook reports to (student code could have unhooked it)."""
        return bool(_active) and _active[-1] is self

    def uninstall(self) -> list[str]:
        """Put the real functions back; returns the patched names that someone else rebound."""
        if self in _active:
            _active.remove(self)
        rebound = []
        while self._saved:
            module, name, original, ours = self._saved.pop()
            if getattr(module, name, None) is not ours:
                rebound.append(f"{module.__name__}.{name}")
            setattr(module, name, original)
        # Whatever the student left open is closed without flushing: the run is over.
        for f in list(self.open_files):
            f._lose_buffer()
            f.closed = True
        for fd in list(self.handles):
            try:
                _real["os_close"](fd)
            except OSError:
                pass
        self.handles.clear()
        self.open_files.clear()
        return rebound

    def __enter__(self):
        return self.install()

    def __exit__(self, *exc):
        self.uninstall()
        return False


class StudentExit(BaseException):
    """The student's code asked the process to exit (os._exit)."""


# --- the audit hook: a safety net for file-system changes the patches did not see ----------

_active: list[FileSystemTracer] = []
_MUTATING_EVENTS = {
    "os.rename", "os.remove", "os.rmdir", "os.mkdir", "os.truncate", "os.link",
    "os.symlink", "mmap.__new__",
}


def _is_write_open(args) -> bool:
    _, mode, flags = (tuple(args) + (None, None, None))[:3]
    if isinstance(mode, str):
        return any(c in mode for c in "wax+")
    return isinstance(flags, int) and bool(flags & WRITE_FLAGS)


# Ways to reach the grader's own frames and objects from student code.
_INTROSPECTION_EVENTS = {"sys._getframe", "sys._current_frames", "gc.get_objects", "gc.get_referrers", "gc.get_referents"}
_FRAME_ATTRIBUTES = {"tb_frame", "gi_frame", "cr_frame", "ag_frame"}
_reentrant = [False]


def _introspection(event, args) -> bool:
    if event in _INTROSPECTION_EVENTS:
        return True
    return event == "object.__getattr__" and len(args) > 1 and args[1] in _FRAME_ATTRIBUTES


def _requested_by(tracer) -> bool:
    """Did the student's own code (or inspect, on its behalf) ask? The standard library's
    own uses (namedtuple, enum, printing a traceback) are left alone."""
    if _reentrant[0]:
        return False
    _reentrant[0] = True
    try:
        frame = sys._getframe(2)  # 0: this function, 1: the hook, 2: who triggered the event
        filename = frame.f_code.co_filename if frame is not None else ""
        return filename == tracer.student_file or filename.endswith(("/inspect.py", "\\inspect.py"))
    finally:
        _reentrant[0] = False


def _audit(event, args):
    if not _active or _reentrant[0]:
        return
    tracer = _active[-1]
    if tracer._in_real:
        return
    if (event == "open" and _is_write_open(args)) or event in _MUTATING_EVENTS:
        if event == "mmap.__new__" and args and args[0] == -1:
            return  # anonymous memory, no file
        tracer.bypasses.append(f"{event}{tuple(args)!r}"[:200])
    elif tracer.student_file and _introspection(event, args) and _requested_by(tracer):
        name = f"{event} ({args[1]})" if event == "object.__getattr__" else event
        tracer.introspection.append(name)
        raise PermissionError(f"{name} não é permitido durante a correção")


sys.addaudithook(_audit)


class TracedFile:
    """A writable file object whose bytes reach the OS only when Python would push them."""

    def __init__(self, tracer, fd, path, mode, binary, encoding, errors, newline, closefd, buffering, name):
        self._tracer = tracer
        self._fd = fd
        self.path = path
        self.mode = mode
        self.name = name
        self._binary = binary
        if not binary and encoding in (None, "locale"):
            encoding = locale.getpreferredencoding(False)  # what open() itself would use
        self.encoding = None if binary else encoding
        self.errors = None if binary else (errors or "strict")
        self._newline = newline
        self._closefd = closefd
        self._buffered = buffering != 0
        self._line_buffered = buffering == 1 and not binary  # text mode pushes at each newline
        self._buffer = bytearray()
        self.closed = False
        tracer.open_files.add(self)

    @classmethod
    def open(cls, tracer, file, mode, buffering, encoding, errors, newline, closefd, opener):
        binary = "b" in mode
        if binary and (encoding or errors or newline):
            raise ValueError("binary mode doesn't take an encoding, errors or newline argument")
        plus = "+" in mode
        if "w" in mode:
            flags = os.O_CREAT | os.O_TRUNC
        elif "a" in mode:
            flags = os.O_CREAT | os.O_APPEND
        elif "x" in mode:
            flags = os.O_CREAT | os.O_EXCL
        else:  # r+
            flags = 0
        flags |= os.O_RDWR if plus or "r" in mode else os.O_WRONLY
        flags |= getattr(os, "O_CLOEXEC", 0)
        if isinstance(file, int):
            fd = file
            handle = tracer.handles.get(fd)
            path = handle.path if handle else f"<fd {fd}>"
            if handle is None:
                tracer.handles[fd] = _Handle(path)
            name = fd
        elif opener is not None:
            # The opener (tempfile's, say) opens through os.open, which registers the step.
            name = file
            fd = opener(_real["os_fspath"](file), flags)
            handle = tracer.handles.get(fd) or _Handle(tracer.abspath(file))
            tracer.handles[fd] = handle
            path = handle.path
        else:
            path = tracer.abspath(file)
            name = file
            tracer.step("open", path)
            fd = tracer._sys("os_open", file, flags, 0o666)
            tracer.handles[fd] = _Handle(path)
        return cls(tracer, fd, path, mode, binary, encoding, errors, newline, closefd, buffering, name)

    # --- writing ----------------------------------------------------------------------

    def _check(self):
        self._tracer.check_alive()
        if self.closed:
            raise ValueError("I/O operation on closed file.")

    def write(self, data):
        self._check()
        if self._binary:
            if isinstance(data, str):
                raise TypeError("a bytes-like object is required, not 'str'")
            raw = bytes(data)
        else:
            if not isinstance(data, str):
                raise TypeError(f"write() argument must be str, not {type(data).__name__}")
            text = data if self._newline in (None, "", "\n") else data.replace("\n", self._newline)
            raw = text.encode(self.encoding, self.errors)
        self._buffer += raw
        if not self._buffered or len(self._buffer) >= BUFFER_SIZE or (self._line_buffered and "\n" in data):
            self._push()
        return len(data)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def _push(self):
        if self._buffer:
            data = bytes(self._buffer)
            self._buffer.clear()
            self._tracer.write_fd(self._fd, data, self.path)

    def flush(self):
        self._check()
        self._push()

    def close(self):
        if self.closed:
            return
        try:
            if not self._tracer.dead:
                self._push()
        finally:
            self.closed = True
            self._tracer.open_files.discard(self)
            if self._closefd and self._fd in self._tracer.handles:
                handle = self._tracer.handles[self._fd]
                if handle.fsynced and not handle.dirty:
                    self._tracer._fsynced_closed.add(handle.path)
                self._tracer.os_close(self._fd)

    def _lose_buffer(self):
        self._buffer.clear()

    def __del__(self):
        # CPython flushes and closes a file object as soon as it is garbage; mirror that,
        # except after a crash, when there is no process left to do it.
        try:
            if not self.closed and not self._tracer.dead and self._tracer._saved:
                self.close()
        except BaseException:
            pass

    # --- the rest of the file API ---------------------------------------------------------

    def fileno(self):
        self._check()
        return self._fd

    def tell(self):
        self._check()
        return _real["os_lseek"](self._fd, 0, os.SEEK_CUR) + len(self._buffer)

    def seek(self, offset, whence=0):
        self.flush()
        return _real["os_lseek"](self._fd, offset, whence)

    def truncate(self, size=None):
        self.flush()
        size = self.tell() if size is None else size
        self._tracer.os_ftruncate(self._fd, size)
        return size

    def read(self, size=-1):
        self.flush()
        chunks = []
        while size < 0 or sum(map(len, chunks)) < size:
            chunk = _real["os_read"](self._fd, 65536 if size < 0 else size - sum(map(len, chunks)))
            if not chunk:
                break
            chunks.append(chunk)
        raw = b"".join(chunks)
        return raw if self._binary else raw.decode(self.encoding, self.errors)

    def readable(self):
        return "+" in self.mode or "r" in self.mode

    def writable(self):
        return True

    def seekable(self):
        return True

    def isatty(self):
        return False

    def __enter__(self):
        self._check()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __iter__(self):
        return iter(self.read().splitlines(keepends=True))

    def __repr__(self):
        return f"<arquivo {self.name!r} mode={self.mode!r}>"
