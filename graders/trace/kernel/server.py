"""The supervisor as a server inside the sandbox: JSON lines on a socket, one run per request, every
root emptied before and after each run."""

from __future__ import annotations

import json
import os
import socket

from ..ops import to_json
from ..removal import empty_folder
from . import landlock
from .lookthread import LookThread, fork
from .pid1 import become_init
from .run import children_listed, confine_settings, prepare_supervisor, run_traced
from .zygote import Zygote


def wipe(roots: list[str], keep: list[str]):
    """Empty every root (and put back the folders in `keep`): nothing of a run survives it. Whatever
    the run left (folders nested past any recursion limit, closed folders, links) is removed without
    recursion and without following a link (graders/trace/removal.py)."""
    for root in roots:
        if os.path.islink(root) or not os.path.isdir(root):
            # Not what we made (the supervisor refuses it; this is the second fence): never follow it.
            try:
                os.unlink(root)
            except OSError:
                pass
            os.makedirs(root, exist_ok=True)
        try:
            os.chmod(root, 0o700 if root not in keep else 0o755)
            empty_folder(root, keep=tuple(os.path.basename(r) for r in roots if os.path.dirname(r) == root))
        except OSError:
            continue
    for path in keep:
        os.makedirs(path, exist_ok=True)
        os.chmod(path, 0o755)


def _fork_from(looker: LookThread | None, config: dict):
    """How this server forks the warm interpreter, or None where runs start cold: from the fenced look
    thread in reduced mode; under bubblewrap (kill_all) from here, where the kernel lists our
    children (the end of a run is then told by that list: run._children)."""
    if looker is not None:
        return looker.fork
    if config.get("kill_all") and children_listed():
        return fork
    return None


def serve(pid1: bool = False):
    """The supervisor as a small server (one per sandbox), driven through a socket on stdin. With
    pid1 (bwrap --as-pid-1) we start as the sandbox's PID 1 and serve from a child (see pid1.py).

    {"cmd": "init", "work", "tmp", "home", "shm"?, "modes": {root: mode}, "env", "python", "reduced",
     "kill_all", "limits", "landlock"?: {"read", "write", "devices", "listable"}}
                                          -> {"ok": true, "landlock": ABI applied or null, "uid"}
    {"cmd": "run", "source", "filename", "job", "timeout", "caps"?} -> the Trace as JSON (ops.to_json);
      caps: {"events", "data", "output"}, the grader's limits for this run (defaults in ops/channel)
    Every run starts from empty roots and ends with every process it started dead.
    """
    if pid1:
        become_init()
    prepare_supervisor()
    control = socket.socket(fileno=0)
    reader = control.makefile("rb")
    config = None
    looker = None
    zygote = None
    while True:
        line = reader.readline(1 << 26)
        if not line:
            break
        command = json.loads(line)
        if command.get("cmd") == "init":
            config = command
            fence = None
            if isinstance(command.get("landlock"), dict):
                rules = command["landlock"]
                fence = landlock.ruleset(rules["read"], rules["write"], rules["devices"], rules.get("listable", []))
            config["landlock_fd"] = fence[0] if fence else None
            if command.get("reduced") and looker is None:
                # One fenced thread for every run of this server: it performs the look-only calls
                # and forks each run's child (lookthread.py). It cannot fence itself: no server.
                try:
                    looker = LookThread(config["landlock_fd"])
                except OSError:
                    control.sendall((json.dumps({"ok": False}) + "\n").encode("utf-8"))
                    break
            reply = json.dumps({"ok": True, "landlock": fence[1] if fence else None, "uid": os.getuid()})
            if zygote is not None:
                zygote.close()
                zygote = None
        elif command.get("cmd") == "run" and config is not None:
            # shm: the run's own /dev/shm (POSIX semaphores and shared memory, as multiprocessing uses
            # them), emptied before and after each run like the other roots.
            roots = [p for p in (config.get("home"), config["work"], config["tmp"], config.get("shm")) if p]
            wipe(roots, [p for p in (config.get("home"), config["work"]) if p])
            os.chmod(config["tmp"], 0o1777)
            if config.get("shm"):
                os.chmod(config["shm"], 0o1777)
            forker = _fork_from(looker, config)
            if forker is not None and (zygote is None or not zygote.alive):
                # Each run's process is forked from a warm interpreter (zygote.py); where that
                # fails, run_traced starts the run's interpreter itself.
                try:
                    zygote = Zygote(forker, config["python"], config["env"],
                                    confine_settings(config["work"], config.get("limits"), config["landlock_fd"]),
                                    bool(config.get("reduced")))
                except OSError:
                    zygote = None
            trace = run_traced(command["source"], command["filename"], command["job"],
                               work=config["work"], tmp=config["tmp"], home=config.get("home"),
                               shm=config.get("shm"),
                               env=config["env"], limits=config.get("limits"), timeout=float(command["timeout"]),
                               python=config["python"], reduced=bool(config.get("reduced")),
                               kill_all=bool(config.get("kill_all")),
                               caps=command.get("caps") if isinstance(command.get("caps"), dict) else None,
                               control=control.fileno(), landlock_fd=config["landlock_fd"], looker=looker,
                               zygote=zygote)
            wipe(roots, [p for p in (config.get("home"), config["work"]) if p])
            reply = to_json(trace)
        else:
            reply = json.dumps({"error": "comando"})
        control.sendall((reply + "\n").encode("utf-8"))
