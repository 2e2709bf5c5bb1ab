"""Red team, round 7, graded through the CLI in both isolation modes: bubblewrap (`auto`) and the
container case (`auto` under tests/no_namespaces.py: reduced mode). Each attacks/rt7_*.py is a whole
answer to nivel-2, aimed at the surfaces round 6's fixes opened:

- nivel2.py's early and regression rules: a mirror in checkpoints/checkpoint.json (right, and going
  back), archiving after the final reply, history files published by hard link, a pending call saved
  stale beside the next reply, "the newest" history file republished wrong, a stale point B written
  during the next tool, tool results in the API's list-of-blocks shape;
- groups.py (reduced mode's process groups): a background server started by `sh -c '... &'` in a
  new session and stopped by os.killpg(os.getpgid(pid)) or os.killpg(shell.pid), a pipeline timed out
  and killed by its group, and a storm of group calls (with SIGKILLs aimed at a decoy process outside
  the run, which must stay alive);
- mappings.py (`_nameless`, `release_unmapped`): O_TMPFILE files filled through a mapping and named by
  linkat (through /proc/self/fd and with AT_EMPTY_PATH), an O_TMPFILE|O_EXCL scratch copied with
  copy_file_range, a linked O_TMPFILE rewritten in place through its mapping, a read-only mapping
  made writable again by a forked child, and a race that makes the grader forget a read-only mapping
  whose mmap it answered before the kernel installed it.

rt7_ok_* must pass every code criterion; rt7_bad_* must fail exactly the criteria in FAILS (what a
real kill finds: tests/ground_truth/test_real_kills_redteam7.py checks the main-thread cases with
strace; the others are labelled by reasoning in each file's header). Verdicts the product gets wrong
today are strict xfails (WRONG); a misjudgment that depends on a race the case wins only some of the
time is a non-strict xfail (RACY)."""

from __future__ import annotations

import subprocess

import pytest

from advkit import (ATTACKS, CODE_CRITERIA, CONTAINER, ISOLATION_MODES, brief, by_file, make_arena, mode_args,
                    mode_id, report, run_cli)

NAMES = sorted(p.stem for p in ATTACKS.glob("rt7_*.py"))
LIMIT = 15

# The criteria each broken case must fail (what a kill exposes); every other code criterion passes.
FAILS = {
    "rt7_bad_group_storm_inplace": {"escrita-atomica"},
    "rt7_bad_mprotect_rename_race": {"escrita-atomica"},
    "rt7_bad_tmpfile_linked_then_stores": {"escrita-atomica"},
    "rt7_bad_thread_mmap_rename_race": {"escrita-atomica"},
    "rt7_bad_mapped_then_renamed_over": {"escrita-atomica"},
    "rt7_bad_hardlink_before_unlink_mapped": {"escrita-atomica"},
    "rt7_bad_readonly_released_child_upgrades": {"escrita-atomica"},
    "rt7_bad_second_file_regresses": {"ponto-a"},
    # The stale pending call does not match the last reply: the saved state is also not a valid checkpoint.
    "rt7_bad_early_stale_pending": {"ponto-a", "seis-campos"},
    "rt7_bad_publish_latest_wrong": {"ponto-a"},
    "rt7_bad_stale_b1_during_tool2": {"ponto-a"},
}

# (case, mode or None for every mode) -> why the verdict is wrong today; a misjudgment that depends on
# a race the case wins only some of the time goes in RACY instead.
WRONG: dict = {}
RACY: dict = {}


def expected(name: str) -> dict[str, bool]:
    failing = FAILS.get(name, set()) if name.startswith("rt7_bad_") else set()
    return {c: c not in failing for c in CODE_CRITERIA}


def _why(table, name, mode) -> str:
    return table.get((name, mode)) or table.get((name, None)) or ""


def _marks(name, mode) -> list:
    if _why(WRONG, name, mode):
        return [pytest.mark.xfail(strict=True, reason=_why(WRONG, name, mode))]
    if _why(RACY, name, mode):
        return [pytest.mark.xfail(strict=False, reason=_why(RACY, name, mode))]
    return []


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One CLI run per mode over every rt7 case, made the first time a test of that mode asks for it, with
    a decoy process outside the run (its own session) that the storm case tries to kill."""
    done = {}

    def get(mode):
        if mode not in done:
            arena = make_arena(tmp_path_factory.mktemp(f"rt7-{mode_id(mode)}"))
            decoy = subprocess.Popen(["sleep", "600"], start_new_session=True)
            try:
                files = [arena.render(name, decoy_pid=decoy.pid) for name in NAMES]
                run = run_cli(arena, files, *mode_args(mode), "--timeout", str(LIMIT), timeout=900)
                alive = decoy.poll() is None
            finally:
                decoy.kill()
                decoy.wait()
            done[mode] = (arena, run, by_file(report(run, files)), alive)
        return done[mode]

    return get


def _verdict(graded, name, mode) -> dict[str, bool]:
    entry = graded(mode)[2][f"{name}.py"]
    assert "error" not in entry, f"{mode_id(mode)}: {brief(entry)}"
    return {c["id"]: c["passed"] for c in entry["criteria"] if c["id"] in CODE_CRITERIA}


def _cases():
    for name in NAMES:
        for mode in ISOLATION_MODES:
            yield pytest.param(name, mode, marks=_marks(name, mode), id=f"{name}-{mode_id(mode)}")


def test_the_round_is_balanced():
    ok = [n for n in NAMES if n.startswith("rt7_ok_")]
    bad = [n for n in NAMES if n.startswith("rt7_bad_")]
    assert len(ok) >= 8 and len(bad) >= 8 and len(ok) + len(bad) == len(NAMES), NAMES
    assert set(FAILS) == set(bad), set(FAILS) ^ set(bad)
    assert {n for n, _m in WRONG} | {n for n, _m in RACY} <= set(NAMES)


@pytest.mark.parametrize("name,mode", list(_cases()))
def test_expected_verdict(graded, name, mode):
    got = _verdict(graded, name, mode)
    entry = graded(mode)[2][f"{name}.py"]
    assert got == expected(name), f"{mode_id(mode)}: {brief(entry)}"


def _parity():
    for name in NAMES:
        # A misjudgment of one mode only breaks parity; a race decides each mode's verdict on its own.
        marks = []
        if WRONG.get((name, CONTAINER)):
            marks = [pytest.mark.xfail(strict=True, reason=WRONG[(name, CONTAINER)])]
        elif _why(RACY, name, CONTAINER):
            marks = [pytest.mark.xfail(strict=False, reason=_why(RACY, name, CONTAINER))]
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(_parity()))
def test_same_verdict_in_both_modes(graded, name):
    verdicts = {}
    for m in ISOLATION_MODES:
        entry = graded(m)[2][f"{name}.py"]
        verdicts[mode_id(m)] = (("error", entry["error"].split(":")[0]) if "error" in entry else
                                tuple(sorted((c["id"], c["passed"]) for c in entry["criteria"] if c["id"] in CODE_CRITERIA)))
    assert len(set(verdicts.values())) == 1, verdicts


def test_no_process_left_no_decoy_changed_and_the_decoy_process_alive(graded):
    for mode in ISOLATION_MODES:
        arena, run, _entries, alive = graded(mode)
        assert run.leftovers == [], (mode_id(mode), run.leftovers[:3])
        assert arena.changed_decoys() == [] and arena.new_entries() == [], mode_id(mode)
        assert alive, f"{mode_id(mode)}: the decoy process outside the run was killed"


def test_every_case_says_why():
    for name in NAMES:
        head = (ATTACKS / f"{name}.py").read_text(encoding="utf-8").splitlines()[0]
        assert head.startswith(("# Honest:", "# Broken:")) and (head.startswith("# Honest:") == name.startswith("rt7_ok_")), name
