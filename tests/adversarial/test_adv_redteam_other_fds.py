"""Red team: /proc/<pid>/fd/<n> of a process that is not the run's. The supervisor reopens such a name
for writing itself (for a pipe), taking the descriptor from that process with pidfd_getfd, with its
own rights and outside the submission's Landlock domain: where the supervisor may reach the CLI (reduced
mode with the CLI's own user: an ordinary user, or root without CAP_SETUID), a submission wrote into
the CLI's standard output, a pipe here as under `| tee` or a CI log, that is into the report itself.
Only the run's own processes' descriptors may be reopened (or linked from)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import no_namespaces
from advkit import CONTAINER, ISOLATION_MODES, make_arena, mode_id

SETUPS = [*ISOLATION_MODES, "sem-setuid"]


@pytest.fixture(scope="module", params=SETUPS, ids=lambda m: m if isinstance(m, str) else mode_id(m))
def piped_report(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("redteam-other-fds"))
    files = [arena.render("redteam_cli_stdout"), arena.sibling()]
    prefix = []
    if request.param == "sem-setuid" and os.getuid() == 0:
        prefix = [shutil.which("setpriv"), "--bounding-set=-setuid,-setgid"]
    if request.param in ("sem-setuid", CONTAINER):
        prefix += no_namespaces.wrapper()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(arena.home), "LANG": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1"}
    # Its standard output a pipe, as under `| tee` or a CI log.
    run = subprocess.run([*prefix, sys.executable, "-m", "graders", "nivel-2", *map(str, files), "--format", "json"],
                         cwd=arena.instructor, env=env, capture_output=True, timeout=180, stdin=subprocess.DEVNULL)
    return arena, run


def test_the_report_is_the_graders_own(piped_report):
    arena, run = piped_report
    marker = arena.params["MARKER"].encode()
    assert marker not in run.stdout and marker not in run.stderr, run.stdout[-500:]
    document = json.loads(run.stdout)
    assert [e["passed"] for e in document["submissions"]] == [False, True]
