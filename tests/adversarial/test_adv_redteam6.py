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
    # A harness that lives on after run_agent keeps a daemon thread or daemonic Process running.
    "rt6_bad_daemon_thread_inplace_after_return": {"escrita-atomica"},
    "rt6_bad_mp_daemon_process_inplace": {"escrita-atomica"},
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

# Misjudged today: (case, mode or None for every mode) -> why. Reported in /work/shared/redteam6-findings.md.
WRONG = {
    ("rt6_bad_save_response_before_pending", None):
        "false pass: a state saved after the tool_use reply and before point A (assistant tool_use in messages, "
        "pendingToolUse null, no tool_result) is never checked by ponto-a (window_failure needs since >= 1)",
    ("rt6_ok_mmap_downgrade_then_publish", None):
        "false fail: mprotect(PROT_READ) drops the write permission, but the file stays 'mapped' while any shared "
        "mapping of it lives, so the published checkpoint is judged writable-mapped",
    ("rt6_ok_mmap_child_mprotect_parent_readonly", None):
        "false fail: the child that made its mapping writable has exited; the parent's read-only mapping keeps the "
        "file 'mapped' across os.replace",
    ("rt6_bad_stale_resave_after_reply", None):
        "false pass: a helper rewrites the stale point-A state (pending call of a tool that already ran, no result) "
        "after point B and the next model reply; states after a model reply and before the next tool are never "
        "checked by ponto-a",
    ("rt6_bad_stale_resave_after_return", None):
        "false pass: after the final reply, helpers rewrite older point-A states; a finished state only has to be one "
        "of the complete checkpoints written so far, not the last one, and ponto-a ignores finished states",
    ("rt6_bad_daemon_thread_inplace_after_return", None):
        "false pass (for a harness that lives on after run_agent): the runner's exit kills the daemon thread before "
        "its in-place rewrite, and nothing says a thread was still running",
    ("rt6_bad_mp_daemon_process_inplace", None):
        "false pass (for a harness that lives on after run_agent): multiprocessing's exit handler terminates the "
        "daemonic Process before its in-place rewrite, and nothing says it was still running",
    ("rt6_bad_b_by_late_child", None):
        "one bug, two criteria: the turn-1 state a late child saves is complete and consistent, but seis-campos "
        "checks its tokensUsed against the replies served when it landed (2), not the conversation it holds",
    ("rt6_ok_mp_value_progress", None):
        "not graded: the page of multiprocessing's heap arena (an unlinked /dev/shm file mapped shared) that holds a "
        "shared Value is recorded as a 4 KB write at every change between two calls, and 6000 increments pass the "
        "16 MB written limit (the code writes ~60 KB of logs)",
    ("rt6_ok_killpg_session_helper", CONTAINER):
        "reduced mode: setsid is a no-op, so os.killpg(helper.pid) after start_new_session is refused (PermissionError)",
    ("rt6_ok_setsid_checked", CONTAINER):
        "reduced mode: setsid and setpgid are no-ops, so a helper's os.getsid(0) == os.getpid() (and "
        "os.getpgrp() == os.getpid()) check after them fails",
    ("rt6_ok_child_kills_own_group", CONTAINER):
        "reduced mode: setpgid is a no-op, so a child's os.killpg(0, SIGTERM) after os.setpgrp() signals the whole run",
    ("rt6_ok_killpg_getpgid_helper", CONTAINER):
        "reduced mode: setpgid is a no-op, so os.killpg(os.getpgid(helper.pid)) signals the whole run (SIGTERM)",
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
