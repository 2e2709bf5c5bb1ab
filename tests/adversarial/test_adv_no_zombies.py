"""The CLI leaves nothing behind, not even a zombie: every process it started (bwrap, the sandbox's PID 1,
a reduced-mode server and its helpers) is reaped before it exits, also after a submission that leaves
daemons. Seen from a subreaper above the CLI, to which any orphan would be handed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from advkit import ISOLATION_MODES, make_arena, mode_args, mode_id, report, run_cli

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("mode", ISOLATION_MODES, ids=mode_id)
def test_the_cli_reaps_every_process_it_started(mode, tmp_path):
    arena = make_arena(tmp_path)
    files = [arena.sibling(), arena.render("outlive_sleeper"), arena.render("proc_spawn")]
    left = tmp_path / "left.json"
    run = run_cli(arena, files, *mode_args(mode), "--timeout", "5",
                  wrapper=[sys.executable, str(HERE / "subreaper.py"), str(left), "--"])
    report(run, files)
    assert json.loads(left.read_text()) == [], "handed to the subreaper above the CLI: " + left.read_text()
