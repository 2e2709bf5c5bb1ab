"""Red team's held-out submissions, graded in both isolation modes: bubblewrap (`auto`) and the
container case (`auto` under tests/no_namespaces.py, reduced mode with Landlock and, run as root,
another user). Each file in redteam/ is a whole answer to nivel-2:

- ok_*: a correct checkpointer written in an unusual way (pathlib, tempfile, dir_fd, mmap, sendfile,
  copy_file_range, threads, a subprocess, fork, renameat2, RENAME_EXCHANGE, O_TMPFILE + linkat...):
  every code criterion passes;
- bad_*: a subtly broken one (truncate then write, a temporary file in the system temp folder moved
  with shutil.move, rename before the last write, a backup rename that leaves no checkpoint...):
  escrita-atomica fails and the other code criteria pass;
- hostile_*: an in-place writer that hides its writes from the trace: it must not pass escrita-atomica.

The two modes must give each file the expected verdict, hence the same one, leave no process behind
and change no decoy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from advkit import CODE_CRITERIA, ISOLATION_MODES, brief, by_file, make_arena, mode_args, mode_id, report, run_cli

HERE = Path(__file__).resolve().parent / "redteam"
FILES = sorted(p.name for p in HERE.glob("*.py"))
# Files whose broken part is not the write (default for bad_*: only escrita-atomica fails).
FAILS = {"bad_only_at_end.py": {"ponto-a"}}


def expected(name: str) -> dict[str, bool]:
    if name.startswith("ok_"):
        failing = set()
    elif name.startswith("bad_"):
        failing = FAILS.get(name, {"escrita-atomica"})
    else:
        return {}
    return {c: c not in failing for c in CODE_CRITERIA}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    out = {}
    for mode in ISOLATION_MODES:
        arena = make_arena(tmp_path_factory.mktemp(f"redteam-{mode_id(mode)}"))
        files = []
        for name in FILES:
            shutil.copyfile(HERE / name, arena.subs / name)
            files.append(arena.subs / name)
        run = run_cli(arena, files, *mode_args(mode), timeout=600)
        out[mode_id(mode)] = (arena, run, by_file(report(run, files)))
    return out


@pytest.mark.parametrize("name", FILES)
def test_expected_verdict_in_both_modes(graded, name):
    verdicts = {}
    for mode, (_arena, _run, entries) in graded.items():
        entry = entries[name]
        assert "error" not in entry, f"{mode}: {brief(entry)}"
        verdicts[mode] = {c["id"]: c["passed"] for c in entry["criteria"] if c["id"] in CODE_CRITERIA}
        if name.startswith("hostile_"):
            assert verdicts[mode]["escrita-atomica"] is False, f"{mode}: {name} passed: {brief(entry)}"
        else:
            assert verdicts[mode] == expected(name), f"{mode}: {brief(entry)}"
    assert len({tuple(sorted(v.items())) for v in verdicts.values()}) == 1, verdicts


def test_no_process_left_and_no_decoy_changed(graded):
    for mode, (arena, run, _entries) in graded.items():
        assert run.leftovers == [], (mode, run.leftovers)
        assert arena.changed_decoys() == [] and arena.new_entries() == [], mode
