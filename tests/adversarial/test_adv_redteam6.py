"""Red team, round 6 (issue 40), graded through the CLI in both isolation modes: bubblewrap (`auto`) and
the container case (`auto` under tests/no_namespaces.py: reduced mode). Each attacks/rt6_*.py is a
whole answer to nivel-2, in one of issue 40's classes:

- processes and threads that outlive run_agent (a double-forked daemon with setsid, a thread or a
  multiprocessing Process left running, a daemon thread or daemonic Process, a helper in a session or
  group of its own stopped with os.killpg);
- the pending call cleared at different moments (before the tool, in a second save, in a mirror file,
  by a helper process that saves late), or saved through helpers honestly;
- shared mappings judged by their protection (a read-only mapping kept across os.replace after
  mprotect removed PROT_WRITE, an mprotect made in a forked child, mremap, MAP_PRIVATE);
- threads and multiprocessing used honestly (ThreadPoolExecutor, Queue with answers, Manager dict,
  shared_memory) and dishonestly (a writer process rewriting the file in place).

rt6_ok_* must pass every code criterion; rt6_bad_* must fail exactly the criteria in FAILS, which
say what a real kill would find (tests/ground_truth/test_real_kills_redteam6.py checks that with
strace where its kills can reach; the others are labelled by reasoning, in each file's header).
Verdicts the product gets wrong today are strict xfails, so the lead sees them flip."""

from __future__ import annotations

import pytest

from advkit import (ATTACKS, CODE_CRITERIA, CONTAINER, ISOLATION_MODES, brief, by_file, make_arena, mode_args,
                    mode_id, report, run_cli)

NAMES = sorted(p.stem for p in ATTACKS.glob("rt6_*.py"))
LIMIT = 15

# The criteria each broken case must fail (what a kill exposes); every other code criterion passes.
FAILS = {
    "rt6_bad_nondaemon_thread_inplace_after_return": {"escrita-atomica"},
    "rt6_bad_mp_process_left_inplace": {"escrita-atomica"},
    "rt6_bad_save_response_before_pending": {"ponto-a"},
    "rt6_bad_pending_cleared_before_tool": {"ponto-a"},
    "rt6_bad_mirror_drops_pending": {"ponto-a"},
    "rt6_bad_b_by_late_child": {"ponto-a"},
    "rt6_bad_stale_resave_after_reply": {"ponto-a"},
    "rt6_bad_helper_clears_after_tool": {"ponto-a"},
    "rt6_bad_atexit_inplace": {"escrita-atomica"},
    # The process never ends: run_agent returned, but the interpreter waits for the thread at its exit.
    "rt6_bad_nondaemon_thread_forever": {"executavel"},
    # After the task ended the file says a tool that ran is still pending: a restart runs it again.
    "rt6_bad_stale_resave_after_return": {"ponto-a"},
    "rt6_bad_session_helper_inplace": {"escrita-atomica"},
    "rt6_bad_shell_rewrites_after_return": {"escrita-atomica"},
    # Its 200-byte pieces leave, between two of them, a JSON that loads with turns=1 and no tool_result.
    "rt6_bad_queue_writer_inplace": {"escrita-atomica", "seis-campos"},
    # Every checkpoint on disk is NUL bytes: nothing loads, so no point is kept and no field is right.
    "rt6_bad_map_private_never_reaches_file": {"escrita-atomica", "ponto-a", "seis-campos"},
    "rt6_bad_mmap_child_writes_after_publish": {"escrita-atomica"},
    "rt6_bad_session_child_writes_mapping": {"escrita-atomica"},
    "rt6_bad_mremap_upgrade_in_place": {"escrita-atomica"},
    "rt6_bad_pkey_upgrade_published": {"escrita-atomica"},
    "rt6_bad_downgrade_then_upgrade_in_place": {"escrita-atomica"},
}

WRONG: dict = {
    # Every verdict of this round is right today; a misjudgment found later goes here as
    # (case, mode or None for every mode) -> why, and shows as a strict xfail.
}


def expected(name: str) -> dict[str, bool]:
    failing = FAILS.get(name, set()) if name.startswith("rt6_bad_") else set()
    return {c: c not in failing for c in CODE_CRITERIA}


def wrong(name: str, mode) -> str:
    return WRONG.get((name, mode)) or WRONG.get((name, None)) or ""


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One CLI run per mode over every rt6 case, made the first time a test of that mode asks for it."""
    done = {}

    def get(mode):
        if mode not in done:
            arena = make_arena(tmp_path_factory.mktemp(f"rt6-{mode_id(mode)}"))
            files = [arena.render(name) for name in NAMES]
            run = run_cli(arena, files, *mode_args(mode), "--timeout", str(LIMIT), timeout=900)
            done[mode] = (arena, run, by_file(report(run, files)))
        return done[mode]

    return get


def _verdict(graded, name, mode) -> dict[str, bool]:
    entry = graded(mode)[2][f"{name}.py"]
    assert "error" not in entry, f"{mode_id(mode)}: {brief(entry)}"
    return {c["id"]: c["passed"] for c in entry["criteria"] if c["id"] in CODE_CRITERIA}


def _cases():
    for name in NAMES:
        for mode in ISOLATION_MODES:
            why = wrong(name, mode)
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            yield pytest.param(name, mode, marks=marks, id=f"{name}-{mode_id(mode)}")


def test_the_round_is_balanced():
    ok = [n for n in NAMES if n.startswith("rt6_ok_")]
    bad = [n for n in NAMES if n.startswith("rt6_bad_")]
    assert len(ok) >= 8 and len(bad) >= 8 and len(ok) + len(bad) == len(NAMES), NAMES
    assert set(FAILS) == set(bad), set(FAILS) ^ set(bad)
    assert {n for n, _m in WRONG} <= set(NAMES)


@pytest.mark.parametrize("name,mode", list(_cases()))
def test_expected_verdict(graded, name, mode):
    got = _verdict(graded, name, mode)
    entry = graded(mode)[2][f"{name}.py"]
    assert got == expected(name), f"{mode_id(mode)}: {brief(entry)}"


def _parity():
    for name in NAMES:
        why = WRONG.get((name, CONTAINER), "")  # a misjudgment of every mode keeps the modes alike
        marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(_parity()))
def test_same_verdict_in_both_modes(graded, name):
    verdicts = {}
    for m in ISOLATION_MODES:
        entry = graded(m)[2][f"{name}.py"]
        # Not graded (a grader limit) counts as a verdict of its own, the same in both modes or not.
        verdicts[mode_id(m)] = (("error", entry["error"].split(":")[0]) if "error" in entry else
                                tuple(sorted((c["id"], c["passed"]) for c in entry["criteria"] if c["id"] in CODE_CRITERIA)))
    assert len(set(verdicts.values())) == 1, verdicts


def test_no_process_left_and_no_decoy_changed(graded):
    for mode in ISOLATION_MODES:
        arena, run, _entries = graded(mode)
        assert run.leftovers == [], (mode_id(mode), run.leftovers[:3])
        assert arena.changed_decoys() == [] and arena.new_entries() == [], mode_id(mode)


def test_every_case_says_why():
    for name in NAMES:
        head = (ATTACKS / f"{name}.py").read_text(encoding="utf-8").splitlines()[0]
        assert head.startswith(("# Honest:", "# Broken:")) and (head.startswith("# Honest:") == name.startswith("rt6_ok_")), name
