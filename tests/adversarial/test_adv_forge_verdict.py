"""Class 5: the broken starter plus a trick to forge its own verdict.

Every attack here is the starter's logic (in-place write, no point A) plus: fake verdict
lines on every descriptor; a stolen protocol token and a clean early exit; profile/trace
hooks, a gc-walking thread, signal handlers that flip verdict-like objects; json swapped
in sys.modules and __main__; grader functions' __code__ swapped. None may pass
escrita-atomica or ponto-a. The plain starter rides along as a control.
"""

from __future__ import annotations

import pytest

from advkit import (
    MODES, assert_forged_nothing, assert_sibling_passes, by_file, make_arena, mode_args, mode_id, report, run_cli,
)

ATTACKS = [
    ("forge_print", {}),
    ("forge_token_exit", {"when": "load"}),
    ("forge_token_exit", {"when": "run"}),
    ("forge_profile_hooks", {}),
    ("forge_gc_thread", {}),
    ("forge_signal_frames", {}),
    ("forge_code_swap", {}),
]


def _name(attack, params):
    return f"{attack}{'_' + params['when'] if 'when' in params else ''}.py"


@pytest.fixture(scope="module", params=MODES, ids=mode_id)
def forged(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("forge"))
    files = [arena.render(attack, _name(attack, params), **params) for attack, params in ATTACKS]
    files += [arena.starter_copy(), arena.sibling()]
    run = run_cli(arena, files, *mode_args(request.param), timeout=240)
    return arena, run, files


def test_report_lists_every_file(forged):
    arena, run, files = forged
    report(run, files)


@pytest.mark.parametrize("name", [_name(a, p) for a, p in ATTACKS] + ["starter_puro.py"])
def test_forgery_does_not_pass(forged, name):
    arena, run, files = forged
    assert_forged_nothing(by_file(report(run, files))[name])


def test_sibling_still_passes(forged):
    arena, run, files = forged
    assert_sibling_passes(report(run, files), files[-1])


def test_exit_code_says_some_failed(forged):
    arena, run, files = forged
    report(run, files)
    assert run.returncode == 1
