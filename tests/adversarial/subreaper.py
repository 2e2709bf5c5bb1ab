"""Runs a command as the subreaper of everything it starts, then writes to OUT the processes that were
handed to it (orphans the command left behind, zombies included) and reaps them.

    python subreaper.py OUT -- COMMAND...
"""

import ctypes
import json
import os
import subprocess
import sys
import time


def children() -> list[list]:
    me, found = os.getpid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read().decode("utf-8", "replace")
        except OSError:
            continue
        comm, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat.rsplit(")", 1)[1].split()
        if int(rest[1]) == me:
            found.append([int(name), rest[0], comm])
    return found


def main() -> int:
    out, command = sys.argv[1], sys.argv[sys.argv.index("--") + 1:]
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    code = subprocess.call(command)
    time.sleep(0.5)  # what dies with the command is handed over meanwhile
    left = children()
    with open(out, "w") as f:
        json.dump(left, f)
    for pid, _state, _comm in left:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except OSError:
            pass
    return code


if __name__ == "__main__":
    sys.exit(main())
