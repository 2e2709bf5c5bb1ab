"""Red team: the work folder lies inside the home folder, so a run could rename it away (or remove it)
and put a symbolic link to a folder outside in its place. Emptying the roots after the run followed
the link: the folder outside was emptied (with the supervisor's rights: in reduced mode with the CLI's
user, any folder of that user) and the next submission graded in the same sandbox ran in it (failing
where its Landlock did not reach it, in bubblewrap mode in whatever the link named). A root can be
neither renamed, removed nor replaced (EBUSY, as for a mount point), and the roots are put back as
real folders before every run."""

from __future__ import annotations

import os
import shutil

import pytest

import no_namespaces
from advkit import ISOLATION_MODES, assert_sibling_passes, make_arena, mode_args, mode_id, report, run_cli

SETUPS = [*ISOLATION_MODES, "sem-dac-override"]


@pytest.fixture(scope="module", params=SETUPS, ids=lambda m: m if m == "sem-dac-override" else mode_id(m))
def swapped(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("redteam-root-swap"))
    os.chmod(arena.outside, 0o755)
    # One sandbox: the sibling is graded right after the attack, in the roots the attack left.
    files = [arena.render("redteam_root_swap"), arena.sibling()]
    if request.param == "sem-dac-override":
        prefix = ([shutil.which("setpriv"), "--bounding-set=-setuid,-setgid,-dac_override,-fowner"]
                  if os.getuid() == 0 else [])
        run = run_cli(arena, files, jobs=1, wrapper=[*prefix, *no_namespaces.wrapper()])
    else:
        run = run_cli(arena, files, *mode_args(request.param), jobs=1)
    return arena, run, files


def test_the_folder_outside_is_untouched(swapped):
    arena, _run, _files = swapped
    assert arena.changed_decoys() == [] and arena.new_entries() == []


def test_the_next_submission_is_graded_in_its_own_folder(swapped):
    _arena, run, files = swapped
    data = report(run, files)
    assert_sibling_passes(data, files[-1])
    assert run.leftovers == []
