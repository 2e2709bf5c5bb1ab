# Included helpers for attack submissions. Every attempt is wrapped: an attack never
# stops at the first refusal, it tries every vector it has.
import os as _os

_RESULTS = []


def _try(label, fn, *args):
    try:
        value = fn(*args)
        _RESULTS.append(f"{label}:ok")
        return value
    except BaseException as exc:  # noqa: BLE001 - includes the grader's own refusals
        _RESULTS.append(f"{label}:{type(exc).__name__}")
        return None


def _read_proc(pid, name, limit=1 << 16):
    fd = _os.open(f"/proc/{pid}/{name}", _os.O_RDONLY)
    try:
        return _os.read(fd, limit)
    finally:
        _os.close(fd)


def _pids():
    try:
        return [int(p) for p in _os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []


def _ppid_of(pid):
    try:
        stat = _read_proc(pid, "stat").decode("ascii", "replace")
        return int(stat.rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _separate_pid_namespace():
    """True only when we provably live in our own PID namespace (signals stay inside)."""
    try:
        return _os.readlink("/proc/self/ns/pid") != "@@HOST_PIDNS@@"
    except OSError:
        return False


def _cli_pids():
    """Processes whose argv names our submissions folder: the CLI that grades us."""
    found = []
    for pid in _pids():
        try:
            if b"@@SUBS@@" in _read_proc(pid, "cmdline"):
                found.append(pid)
        except OSError:
            pass
    return found


def _safe_targets():
    """Every process a hostile submission would like to kill, limited so that running this
    attack can never hurt anything but the grading that runs it:
    - inside our own PID namespace: everyone but us;
    - otherwise: the CLI grading us and all its descendants, and nothing else."""
    me = _os.getpid()
    if _separate_pid_namespace():
        return [p for p in _pids() if p != me and p != 1] + [1]
    roots = set(_cli_pids())
    targets = []
    for pid in _pids():
        if pid == me:
            continue
        p, hops = pid, 0
        while p > 1 and hops < 64:
            if p in roots:
                targets.append(pid)
                break
            p, hops = _ppid_of(p), hops + 1
    return targets
