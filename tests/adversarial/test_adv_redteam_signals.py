"""Red team: ways to reach another process that do not go through kill, tkill or tgkill, which the
supervisor checks: queued signals (rt_sigqueueinfo, rt_tgsigqueueinfo), SIGIO sent to the owner of
a pipe (fcntl F_SETOWN with F_SETSIG naming SIGKILL), and prlimit64 on another process (RLIMIT_CPU 0
kills it, RLIMIT_NOFILE 3 cripples it; it needs no signal at all, so Landlock's scopes do not stop
it). A submission used them to kill the supervisor grading it (reported as the grader's own failure,
"não é culpa do código") and, run as an ordinary user without Landlock's signal scope (kernels
before 6.12, the `--sem-landlock` filter here), any process of the instructor's user. The attacks
aim only at the CLI that grades them and its descendants (attacks/_common.py, _safe_targets).

The same for another process's scheduling and I/O priority (sched_setscheduler, setpriority,
sched_setaffinity, ioprio_set, also for a whole group or user): Landlock does not cover them, so in
reduced mode a submission left processes of the CLI's user at SCHED_IDLE and nice 19 after it ended.
The victim is a process this test starts without capabilities; it shares the submission's user where
the CLI keeps its own (root without CAP_SETUID, as an ordinary user does)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

import no_namespaces
from advkit import (CONTAINER, assert_forged_nothing, assert_sibling_passes, brief, by_file, make_arena,
                    mode_args, report, run_cli)

ATTACKS = ["redteam_sigqueue", "redteam_prlimit"]
# bubblewrap (auto), the container (reduced mode with Landlock) and a container on a kernel without
# Landlock, where only the supervisor stands between a submission and the instructor's processes.
SETUPS = {"auto": ((), None), "conteiner": (tuple(mode_args(CONTAINER)), None),
          "sem-landlock": ((), no_namespaces.wrapper(landlock=False))}


@pytest.fixture(scope="module", params=[(s, a) for s in SETUPS for a in ATTACKS], ids=lambda p: f"{p[0]}-{p[1]}")
def signalled(request, tmp_path_factory):
    setup, attack = request.param
    args, wrapper = SETUPS[setup]
    arena = make_arena(tmp_path_factory.mktemp("redteam-signals"))
    files = [arena.sibling(), arena.render(attack), arena.sibling("vizinho_2.py")]
    run = run_cli(arena, files, *args, wrapper=wrapper, timeout=90)
    return arena, run, files, attack


def test_the_supervisor_survives_and_the_run_is_judged(signalled):
    _arena, run, files, attack = signalled
    entry = by_file(report(run, files))[f"{attack}.py"]
    text = brief(entry)
    assert "o processo de correção falhou" not in text, f"{attack} killed its own supervisor: {text}"
    assert_forged_nothing(entry)


def test_siblings_pass_and_nothing_is_left(signalled):
    arena, run, files, _attack = signalled
    data = report(run, files)
    assert_sibling_passes(data, files[0])
    assert_sibling_passes(data, files[2])
    assert run.leftovers == [] and arena.changed_decoys() == []


def _sched_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return {"nice": int(fields[16]), "policy": int(fields[38]), "cpus": sorted(os.sched_getaffinity(pid))}


@pytest.fixture(scope="module", params=["auto", "conteiner", "sem-setuid"])
def rescheduled(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("redteam-sched"))
    # Without capabilities, as an ordinary user's processes are (one with more would be out of reach).
    drop = [shutil.which("setpriv"), "--bounding-set=-all"] if os.getuid() == 0 else []
    victim = subprocess.Popen([*drop, "sleep", "120"], stdin=subprocess.DEVNULL)
    try:
        before = _sched_of(victim.pid)
        files = [arena.render("redteam_sched", victim=victim.pid), arena.sibling()]
        if request.param == "sem-setuid":
            wrapper = ([shutil.which("setpriv"), "--bounding-set=-setuid,-setgid"] if os.getuid() == 0 else [])
            run = run_cli(arena, files, wrapper=[*wrapper, *no_namespaces.wrapper()])
        else:
            run = run_cli(arena, files, *(mode_args(CONTAINER) if request.param == "conteiner" else ()))
        after = _sched_of(victim.pid)
    finally:
        victim.kill()
        victim.wait()
    return run, files, before, after


def test_other_processes_keep_their_scheduling(rescheduled):
    run, files, before, after = rescheduled
    assert after == before
    data = report(run, files)
    assert_forged_nothing(by_file(data)["redteam_sched.py"])
    assert_sibling_passes(data, files[-1])
