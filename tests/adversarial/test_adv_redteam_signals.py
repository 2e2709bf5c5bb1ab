"""Red team: ways to reach another process that do not go through kill, tkill or tgkill, which the
supervisor checks: queued signals (rt_sigqueueinfo, rt_tgsigqueueinfo), SIGIO sent to the owner of
a pipe (fcntl F_SETOWN with F_SETSIG naming SIGKILL), and prlimit64 on another process (RLIMIT_CPU 0
kills it, RLIMIT_NOFILE 3 cripples it; it needs no signal at all, so Landlock's scopes do not stop
it). A submission used them to kill the supervisor grading it (reported as the grader's own failure,
"não é culpa do código") and, run as an ordinary user without Landlock's signal scope (kernels
before 6.12, the `--sem-landlock` filter here), any process of the instructor's user. The attacks
aim only at the CLI that grades them and its descendants (attacks/_common.py, _safe_targets)."""

from __future__ import annotations

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
