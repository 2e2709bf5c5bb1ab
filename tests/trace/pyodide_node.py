"""One Pyodide under Node (offline) for the whole test session, running traced jobs through the page's
own tap (tests/pyodide_trace.mjs): boots once (~5 s), then answers one JSON line per request."""

from __future__ import annotations

import atexit
import itertools
import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "tests" / "pyodide_trace.mjs"


class PyodideNode:
    def __init__(self):
        node = shutil.which("node")
        assert node, "Node.js is needed to run Pyodide (make test installs the npm deps)"
        self.proc = subprocess.Popen(
            [node, "--disable-warning=MODULE_TYPELESS_PACKAGE_JSON", str(HARNESS)], cwd=ROOT,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1,
        )
        self.ids = itertools.count()

    def ask(self, request: dict) -> dict:
        request = dict(request, id=next(self.ids))
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "the Pyodide harness died"
        reply = json.loads(line)
        assert reply["id"] == request["id"]
        assert "error" not in reply, reply["error"]
        return reply

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


_session: PyodideNode | None = None


def session() -> PyodideNode:
    """The session's Pyodide, started on first use."""
    global _session
    if _session is None:
        _session = PyodideNode()
        atexit.register(_session.close)
    return _session
