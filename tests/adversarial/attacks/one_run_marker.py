# Attack (first-run / second-run trick): looks for a marker left by an earlier run in every
# writable place it can think of (HOME, /tmp, the work folder, its parent, /dev/shm,
# /var/tmp); atomic only when it finds one (as if this were the grader's second run), and
# leaves the marker behind for whatever runs next. MARK names the marker (shared by two
# copies graded one after the other in one sandbox).
#@@INCLUDE:_switch.py@@
import tempfile

MARK = "@@MARK@@"


def _places():
    home = os.path.expanduser("~")
    return [os.path.join(p, MARK) for p in (home, tempfile.gettempdir(), "/tmp", ".", "..", "/dev/shm", "/var/tmp")]


def _looks_graded():
    return _SEEN


def _scan():
    seen = any(os.path.exists(p) for p in _places()) or os.environ.get(MARK) == "1"
    for p in _places():
        try:
            with open(p, "w") as f:
                f.write("1")
        except OSError:
            pass
    return seen


_SEEN = _scan()
