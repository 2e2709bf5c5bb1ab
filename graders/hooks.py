"""Executor side: report every file-system step of student code to the controller, and obey it.

While `FileHooks` is installed, `open` (for writing), `os.open/write/close/fsync/replace/...`
and what is built on them (pathlib, tempfile, shutil) report each step as an operation
*before* it happens and wait for the answer: go on, write only the first n bytes, or die.
Files opened for writing are real `io` objects over a reporting `FileIO`, so Python's own
buffering decides when bytes reach the OS, as it would in a real process.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
import sys
import weakref

# Captured at import, before any student code runs.
_real = {
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
    "os_fstat": os.fstat,
    "os_fspath": os.fspath,
    "os_getcwd": os.getcwd,
    "os_pwrite": getattr(os, "pwrite", None),
}
_FileIO = io.FileIO
_posix = sys.modules.get("posix") or sys.modules.get("nt")

BUFFER_SIZE = 8192
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class SimulatedCrash(BaseException):
    """The process died here (in-process runs only; the CLI kills the process instead)."""


class StudentExit(BaseException):
    """The student's code asked the process to end (os._exit, os.abort, os.kill)."""


class FileHooks:
    """One instance per run; `report(op) -> answer` talks to the controller."""

    def __init__(self, root: str, report):
        self.root = root.rstrip(os.sep) or os.sep
        self.report = report
        self.fds: dict[int, dict] = {}  # traced descriptor -> {"path", "append"}
        self._saved: list[tuple[object, str, object]] = []
        self.dead = False
        self.files = weakref.WeakSet()  # file objects handed to student code
        self._folders: dict[str, str] = {}  # folder as written -> its realpath (one lstat per component, once)

    # --- paths ---------------------------------------------------------------------------

    def shown(self, path, dir_fd=None) -> str:
        """The path relative to the run's root when inside it (realpath of the folder), else absolute."""
        if isinstance(path, int):
            return self.fds.get(path, {}).get("path", f"<fd {path}>")
        path = _real["os_fspath"](path)
        if isinstance(path, bytes):
            path = path.decode("utf-8", "surrogateescape")
        if dir_fd is not None and not os.path.isabs(path):
            return f"<dir_fd>/{path}"
        full = os.path.join(_real["os_getcwd"](), path)
        folder, name = os.path.split(os.path.normpath(full))
        real = self._folders.get(folder)
        if real is None:
            real = self._folders[folder] = os.path.realpath(folder)
        full = os.path.join(real, name)
        if full == self.root or full.startswith(self.root + os.sep):
            return os.path.relpath(full, self.root)
        return full

    # --- asking the controller --------------------------------------------------------------

    def step(self, kind: str, path: str = "", **extra) -> dict:
        if self.dead:
            raise SimulatedCrash()
        answer = self.report({"t": "op", "kind": kind, "path": path, **extra})
        if answer.get("a") == "die":
            self.dead = True
            raise SimulatedCrash()
        return answer

    def failed(self):
        """The step just reported raised in the OS (no such file...): it changed nothing."""
        if not self.dead:
            self.report({"t": "failed"})

    def call(self, name, *args, **kwargs):
        try:
            return _real[name](*args, **kwargs)
        except OSError:
            self.failed()
            raise

    def write_fd(self, fd: int, data: bytes, offset: int | None = None) -> int:
        info = self.fds[fd]
        if offset is None:
            offset = _real["os_fstat"](fd).st_size if info["append"] else _real["os_lseek"](fd, 0, os.SEEK_CUR)
            positional = False
        else:
            positional = True
        answer = self.step("write", info["path"], offset=offset, data=data.decode("latin-1"))
        if answer.get("a") == "tear":
            cut = max(0, min(int(answer.get("n", 0)), len(data)))
            self._write_all(fd, data[:cut], offset if positional else None)
            self.step("torn", info["path"])  # never answered with "go"
            raise SimulatedCrash()
        self._write_all(fd, data, offset if positional else None)
        return len(data)

    @staticmethod
    def _write_all(fd: int, data: bytes, offset: int | None):
        view = memoryview(data)
        while view:
            if offset is None:
                written = _real["os_write"](fd, view)
            else:
                written = _real["os_pwrite"](fd, view, offset)
                offset += written
            view = view[written:]

    # --- the intercepted functions ------------------------------------------------------------

    def os_open(self, path, flags, mode=0o777, *, dir_fd=None):
        if not flags & WRITE_FLAGS:
            return _real["os_open"](path, flags, mode, dir_fd=dir_fd)
        shown = self.shown(path, dir_fd)
        self.step("open", shown, trunc=bool(flags & os.O_TRUNC), create=bool(flags & os.O_CREAT))
        fd = self.call("os_open", path, flags, mode, dir_fd=dir_fd)
        self.fds[fd] = {"path": shown, "append": bool(flags & os.O_APPEND)}
        return fd

    def os_write(self, fd, data):
        if fd not in self.fds:
            return _real["os_write"](fd, data)
        return self.write_fd(fd, bytes(data))

    def os_pwrite(self, fd, data, offset):
        if fd not in self.fds:
            return _real["os_pwrite"](fd, data, offset)
        return self.write_fd(fd, bytes(data), offset)

    def os_writev(self, fd, buffers):
        return self.os_write(fd, b"".join(bytes(b) for b in buffers))

    def os_pwritev(self, fd, buffers, offset, flags=0):
        return self.os_pwrite(fd, b"".join(bytes(b) for b in buffers), offset)

    def os_no_fast_copy(self, *args, **kwargs):
        # Kernel-side copies would write without a step; shutil falls back to read/write.
        raise OSError(errno.EINVAL, "cópia no kernel desativada durante a correção")

    def os_close(self, fd):
        if fd not in self.fds:
            return _real["os_close"](fd)
        self.step("close", self.fds[fd]["path"])
        del self.fds[fd]
        return _real["os_close"](fd)

    def os_fsync(self, fd, _name="os_fsync"):
        fd = fd if isinstance(fd, int) else fd.fileno()
        if fd not in self.fds:
            return _real[_name](fd)
        self.step("fsync", self.fds[fd]["path"])
        return _real[_name](fd)

    def os_fdatasync(self, fd):
        return self.os_fsync(fd, "os_fdatasync")

    def _rename(self, kind: str, src, dst, *, src_dir_fd=None, dst_dir_fd=None):
        old, new = self.shown(src, src_dir_fd), self.shown(dst, dst_dir_fd)
        open_now = any(info["path"] == old for info in self.fds.values())
        self.step(kind, old, target=new, still_open=open_now)
        result = self.call("os_" + kind, src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
        for info in self.fds.values():
            if info["path"] == old:
                info["path"] = new
        return result

    def os_replace(self, src, dst, **kwargs):
        return self._rename("replace", src, dst, **kwargs)

    def os_rename(self, src, dst, **kwargs):
        return self._rename("rename", src, dst, **kwargs)

    def os_remove(self, path, *, dir_fd=None):
        self.step("remove", self.shown(path, dir_fd))
        return self.call("os_remove", path, dir_fd=dir_fd)

    def os_unlink(self, path, *, dir_fd=None):
        self.step("remove", self.shown(path, dir_fd))
        return self.call("os_unlink", path, dir_fd=dir_fd)

    def os_truncate(self, path, length):
        if isinstance(path, int):
            return self.os_ftruncate(path, length)
        self.step("truncate", self.shown(path), length=length)
        return self.call("os_truncate", path, length)

    def os_ftruncate(self, fd, length):
        if fd not in self.fds:
            return _real["os_ftruncate"](fd, length)
        self.step("truncate", self.fds[fd]["path"], length=length)
        return _real["os_ftruncate"](fd, length)

    def os_mkdir(self, path, mode=0o777, *, dir_fd=None):
        self.step("mkdir", self.shown(path, dir_fd))
        return self.call("os_mkdir", path, mode, dir_fd=dir_fd)

    def os_rmdir(self, path, *, dir_fd=None):
        self.step("rmdir", self.shown(path, dir_fd))
        return self.call("os_rmdir", path, dir_fd=dir_fd)

    def os_exit(self, code=0):
        raise StudentExit(f"os._exit({code!r})")

    def io_open(self, file, mode="r", buffering=-1, encoding=None, errors=None, newline=None, closefd=True, opener=None):
        if not isinstance(mode, str) or not any(c in mode for c in "wax+"):
            return _real["io_open"](file, mode, buffering, encoding, errors, newline, closefd, opener)
        return open_traced(self, file, mode, buffering, encoding, errors, newline, closefd, opener)

    # --- install / uninstall -------------------------------------------------------------------

    def _patch(self, module, name, value):
        if module is None or not hasattr(module, name):
            return
        self._saved.append((module, name, getattr(module, name)))
        setattr(module, name, value)

    def install(self):
        import _io

        opener = self.io_open  # one object, so that `builtins.open is io.open` still holds
        for module in (builtins, io, _io):
            self._patch(module, "open", opener)
        table = {
            "open": self.os_open, "write": self.os_write, "close": self.os_close,
            "fsync": self.os_fsync, "fdatasync": self.os_fdatasync,
            "replace": self.os_replace, "rename": self.os_rename,
            "remove": self.os_remove, "unlink": self.os_unlink,
            "truncate": self.os_truncate, "ftruncate": self.os_ftruncate,
            "mkdir": self.os_mkdir, "rmdir": self.os_rmdir, "_exit": self.os_exit,
            "pwrite": self.os_pwrite, "writev": self.os_writev, "pwritev": self.os_pwritev,
            "sendfile": self.os_no_fast_copy, "copy_file_range": self.os_no_fast_copy,
            "splice": self.os_no_fast_copy,
        }
        for module in (os, _posix):
            for name, value in table.items():
                self._patch(module, name, value)
        return self

    def uninstall(self):
        """Put the real functions back; whatever the student left open is closed unflushed."""
        self.dead = True
        while self._saved:
            module, name, original = self._saved.pop()
            setattr(module, name, original)
        for f in list(self.files):
            try:
                f.close()  # its buffer goes nowhere: a dead run writes nothing
            except Exception:  # noqa: BLE001
                pass
        for fd in list(self.fds):
            try:
                _real["os_close"](fd)
            except OSError:
                pass
        self.fds.clear()


class TracedFileIO(_FileIO):
    """A real FileIO whose writes, truncations and close are reported first."""

    _hooks: FileHooks | None = None

    def write(self, b):
        hooks = self._hooks
        if hooks is not None and hooks.dead:
            return len(b)  # what is still in a buffer when the process dies never reaches the disk
        fd = self.fileno()
        if hooks is None or fd not in hooks.fds:
            return super().write(b)
        return hooks.write_fd(fd, bytes(b))

    def truncate(self, size=None):
        hooks = self._hooks
        if hooks is not None and self.fileno() in hooks.fds:
            size = self.tell() if size is None else size
            hooks.step("truncate", hooks.fds[self.fileno()]["path"], length=size)
        return super().truncate(size)

    def close(self):
        hooks = self._hooks
        if self.closed or hooks is None:
            return super().close()
        fd = self.fileno()
        if self.closefd and fd in hooks.fds:
            if not hooks.dead:
                hooks.step("close", hooks.fds[fd]["path"])
            del hooks.fds[fd]
        return super().close()


def open_traced(hooks: FileHooks, file, mode, buffering, encoding, errors, newline, closefd, opener):
    """`open()` for writing, built as `io.open` builds it, over a reporting FileIO."""
    modes = set(mode)
    if modes - set("axrwb+t") or len(mode) > len(modes):
        raise ValueError(f"invalid mode: {mode!r}")
    binary = "b" in modes
    if binary and "t" in modes:
        raise ValueError("can't have text and binary mode at once")
    if binary and (encoding is not None or errors is not None or newline is not None):
        raise ValueError("binary mode doesn't take an encoding, errors or newline argument")
    raw_mode = "".join(c for c in mode if c in "axrw+")
    if isinstance(file, int):
        if file not in hooks.fds:
            hooks.fds[file] = {"path": f"<fd {file}>", "append": "a" in modes}
    elif opener is None:
        opener = hooks.os_open
    raw = TracedFileIO(file, raw_mode, closefd, opener=opener)
    raw._hooks = hooks
    try:
        line_buffering = False
        if buffering == 1:  # a checkpoint is a regular file, never a terminal
            buffering, line_buffering = -1, True
        if buffering < 0:
            # Fixed, not the device's block size: both engines (3.11 and Pyodide's 3.14) flush alike.
            buffering = BUFFER_SIZE
        if buffering == 0:
            if binary:
                hooks.files.add(raw)
                return raw
            raise ValueError("can't have unbuffered text I/O")
        if "+" in modes:
            buffer = io.BufferedRandom(raw, buffering)
        else:
            buffer = io.BufferedWriter(raw, buffering)
        if binary:
            hooks.files.add(buffer)
            return buffer
        text = io.TextIOWrapper(buffer, encoding, errors, newline, line_buffering)
        text.mode = mode
        hooks.files.add(text)
        return text
    except BaseException:
        raw.close()
        raise
