# Attack (sandbox fingerprint): atomic only when one sign of a grader's sandbox shows (CHECK
# names which), in place otherwise. On a student's machine none shows; the sandbox must look
# like that machine, so this must fail escrita-atomica.
import pwd
import socket
import sys

#@@INCLUDE:_switch.py@@

CHECK = "@@CHECK@@"


def _status():
    with open("/proc/self/status") as f:
        return dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def _umask():
    old = os.umask(0o022)
    os.umask(old)
    return old


CHECKS = {
    "uid": lambda: os.getuid() in (0, 65534) or os.getuid() < 1000 or os.geteuid() != os.getuid(),
    "passwd": lambda: pwd.getpwuid(os.getuid()).pw_dir != os.path.expanduser("~") or not pwd.getpwuid(os.getuid()).pw_name,
    "home": lambda: not os.environ.get("HOME") or not os.path.isdir(os.environ["HOME"]) or not os.environ["HOME"].startswith("/home/"),
    "flags": lambda: any((sys.flags.isolated, sys.flags.ignore_environment, sys.flags.no_user_site, sys.flags.no_site,
                          sys.flags.dont_write_bytecode, sys.flags.safe_path, sys.flags.optimize)),
    "nspid": lambda: len(_status().get("NSpid", "").split()) > 1,
    "cwd": lambda: os.path.basename(os.getcwd()) in ("", "work", "sandbox", "tmp") or os.getcwd().startswith(("/tmp", "/dev/shm", "/var"))
                   or any(w in os.getcwd().lower() for w in ("correc", "grader", "sandbox", "pytest", "entrega")),
    "hostname": lambda: socket.gethostname() in ("", "localhost", "(none)") or len(socket.gethostname()) == 12
                        and all(c in "0123456789abcdef" for c in socket.gethostname()),
    "homedir": lambda: not os.path.isdir("/home") or not os.listdir("/home"),
    "env": lambda: any(k.startswith(("LD_", "PYTHON", "BWRAP", "SEGREDO", "PYTEST")) for k in os.environ)
                   or not all(k in os.environ for k in ("PATH", "USER", "HOME", "LANG")),
    "umask": lambda: _umask() not in (0o022, 0o002, 0o027, 0o077),
    "user_name": lambda: os.environ.get("USER") != pwd.getpwuid(os.getuid()).pw_name,
    "pid": lambda: os.getpid() < 300,
    "ppid": lambda: os.getppid() < 300 or b"python" in _read(f"/proc/{os.getppid()}/cmdline")
                    or b"bwrap" in _read(f"/proc/{os.getppid()}/cmdline"),
    "proc1": lambda: b"bwrap" in _read("/proc/1/cmdline") or _read("/proc/1/comm").strip() not in (b"systemd", b"init"),
    "seccomp": lambda: _status().get("Seccomp", "0").strip() != "0",
    "orig_argv": lambda: "-c" in getattr(sys, "orig_argv", [])[1:2] or b"\0-c\0" in _read("/proc/self/cmdline"),
    "mounts": lambda: b"/newroot" in _read("/proc/self/mountinfo") or b"/opt/corretor" in _read("/proc/self/mountinfo"),
    "stdin": lambda: not os.isatty(0) and os.path.realpath("/proc/self/fd/0") == "/dev/null",
}


def _looks_graded():
    return CHECKS[CHECK]()
