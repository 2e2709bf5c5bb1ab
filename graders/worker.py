"""Child process of the CLI: grades one submission, fenced in, and prints the verdict once.

The parent sends the job on stdin as JSON with a random token; the verdict comes back on
stdout as one line `<token> <json>`. Limits (memory, file size, CPU) and an audit hook
keep a hostile submission inside its own temporary folder: no processes, no network,
no writes elsewhere.
"""

from __future__ import annotations

import json
import os
import sys

# Events that have no business in a checkpoint exercise.
BLOCKED_EVENTS = {
    "os.system", "os.exec", "os.spawn", "os.fork", "os.forkpty", "os.posix_spawn", "subprocess.Popen",
    "os.kill", "os.killpg", "signal.pthread_kill", "socket.__new__", "socket.connect", "socket.bind",
    "socket.getaddrinfo", "ctypes.dlopen", "ctypes.dlsym", "ctypes.cdata", "ctypes.call_function",
    "os.startfile", "webbrowser.open", "pty.spawn",
}
# Events that change the file system, with the positions of their path arguments.
PATH_EVENTS = {
    "os.rename": (0, 1), "os.remove": (0,), "os.rmdir": (0,), "os.mkdir": (0,), "os.truncate": (0,),
    "os.link": (0, 1), "os.symlink": (0, 1), "os.chmod": (0,), "os.chown": (0,), "os.utime": (0,),
    "shutil.rmtree": (0,), "shutil.copyfile": (1,), "shutil.copytree": (1,), "shutil.move": (1,),
    "os.chflags": (0,), "os.setxattr": (0,), "os.removexattr": (0,),
}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _inside(path, root: str) -> bool:
    if isinstance(path, int) or path is None:
        return True  # a file descriptor: the open itself was checked
    try:
        full = os.path.realpath(os.fsdecode(path))
    except (TypeError, ValueError):
        return False
    return full == root or full.startswith(root + os.sep)


def install_fence(root: str):
    root = os.path.realpath(root)

    def fence(event, args):
        if event in BLOCKED_EVENTS:
            raise PermissionError(f"bloqueado pelo corretor: {event}")
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            writing = any(c in mode for c in "wax+") if isinstance(mode, str) else bool((flags or 0) & WRITE_FLAGS)
            if writing and not _inside(path, root):
                raise PermissionError(f"bloqueado pelo corretor: escrita fora da pasta da correção ({path})")
        elif event in PATH_EVENTS:
            for index in PATH_EVENTS[event]:
                if index < len(args) and not _inside(args[index], root):
                    raise PermissionError(f"bloqueado pelo corretor: {event} fora da pasta da correção")

    sys.addaudithook(fence)


def set_limits(memory_mb: int, cpu_seconds: int):
    try:
        import resource
    except ImportError:  # not on this platform: the wall-clock limit still holds
        return
    limits = {
        "RLIMIT_AS": memory_mb * 1024 * 1024,
        "RLIMIT_FSIZE": 32 * 1024 * 1024,
        "RLIMIT_CORE": 0,
        "RLIMIT_CPU": cpu_seconds,
        "RLIMIT_NOFILE": 256,
    }
    for name, value in limits.items():
        if hasattr(resource, name):
            try:
                resource.setrlimit(getattr(resource, name), (value, value))
            except (ValueError, OSError):
                pass


def main():
    job = json.loads(sys.stdin.read())
    sys.stdin.close()
    token = job.pop("token")
    # Everything the grading needs is imported before the fence goes up.
    from graders.grading import grade
    from graders.submission import Submission
    from graders.verdict import failed_all
    from graders import exercises

    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    # Whatever the student writes straight to fd 1 or 2 is dropped, so a flood of output
    # cannot fill the parent's memory (print() is already captured and capped).
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    root = os.environ.get("TMPDIR") or os.getcwd()
    set_limits(job.get("memory_mb", 1024), job.get("cpu_seconds", 60))
    install_fence(root)
    ids = exercises.criterion_ids(job["exercise"]) if job.get("answers") is not None else exercises.code_criteria(job["exercise"])
    try:
        verdict = grade(job["exercise"], Submission(job.get("code"), job.get("answers")), job.get("filename", "solucao.py"))
        data = verdict.to_dict()
    except MemoryError:
        data = failed_all(job["exercise"], ids, "O código esgotou a memória permitida para a correção.").to_dict()
    except BaseException as exc:  # noqa: BLE001 - e.g. a KeyboardInterrupt raised by the student
        data = failed_all(job["exercise"], ids, f"O código interrompeu a correção ({type(exc).__name__}).").to_dict()
    out.write(f"{token} {json.dumps(data, ensure_ascii=False)}\n")
    out.flush()
    os._exit(0)  # skip interpreter teardown: nothing the student left behind runs after this


if __name__ == "__main__":
    main()
