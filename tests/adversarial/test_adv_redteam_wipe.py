"""Red team: the run's folders are emptied before and after every run (and removed when a sandbox is
closed), retrying a failed removal with chmod 0700 on the entry. A submission left a folder without
write permission holding a symbolic link to a file outside: the retry's chmod followed the link and
changed the outside file's mode, with the supervisor's rights (reduced mode with the CLI's user: an
ordinary user, or root without CAP_DAC_OVERRIDE, which this test stands for when run as root)."""

from __future__ import annotations

import os
import shutil

import pytest

import no_namespaces
from advkit import ISOLATION_MODES, assert_forged_nothing, assert_sibling_passes, by_file, make_arena, mode_args, mode_id, report, run_cli

SETUPS = [*ISOLATION_MODES, "sem-dac-override"]


@pytest.fixture(scope="module", params=SETUPS, ids=lambda m: m if m == "sem-dac-override" else mode_id(m))
def wiped(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("redteam-wipe"))
    files = [arena.render("redteam_wipe_symlink"), arena.sibling()]
    if request.param == "sem-dac-override":
        prefix = ([shutil.which("setpriv"), "--bounding-set=-setuid,-setgid,-dac_override,-fowner"]
                  if os.getuid() == 0 else [])
        run = run_cli(arena, files, wrapper=[*prefix, *no_namespaces.wrapper()])
    else:
        run = run_cli(arena, files, *mode_args(request.param))
    return arena, run, files


def test_the_file_outside_keeps_its_mode(wiped):
    arena, _run, _files = wiped
    assert arena.changed_decoys() == []


def test_graded_as_the_starter_and_the_sibling_passes(wiped):
    _arena, run, files = wiped
    data = report(run, files)
    assert_forged_nothing(by_file(data)["redteam_wipe_symlink.py"])
    assert_sibling_passes(data, files[-1])
    assert run.leftovers == []
