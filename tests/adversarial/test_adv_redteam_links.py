"""Red team: what the supervisor does to a file named only by a descriptor.

A link made from a descriptor (linkat with AT_EMPTY_PATH, or /proc/self/fd with AT_SYMLINK_FOLLOW)
names no path the supervisor could fence, and the supervisor makes the link itself, outside the
submission's Landlock domain. In reduced mode the temporary folder lies on the system temp folder's
file system, often the instructor's own: a file the submission can open read-only (without Landlock,
any file of the CLI's user; with it, a user-owned Python install) became a file of the temporary
folder, and writing it changed the instructor's file. The source of such a link must be a file of
the work folders; anything else gets EXDEV, as bubblewrap's mounts give it. The same for fchmod and
futimens in reduced mode: an fsync of the outside file had given it a node in the supervisor's
table, and a file with a node counted as one of the work folders'."""

from __future__ import annotations

import os
import shutil

import pytest

import no_namespaces
from advkit import (CONTAINER, assert_forged_nothing, assert_sibling_passes, brief, by_file, crit, make_arena, mode_args,
                    report, run_cli)

# Without Landlock the decoy is readable; root without CAP_SETUID (docker run --cap-drop) keeps its
# identity, so it owns the decoy as an ordinary user owns their files.
SETUPS = {"auto": ((), None), "conteiner": (tuple(mode_args(CONTAINER)), None),
          "sem-landlock": ((), no_namespaces.wrapper(landlock=False)),
          "sem-landlock-sem-setuid": ((), "drop")}


def _wrapper(kind):
    if kind != "drop":
        return kind
    prefix = []
    if os.getuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv, "util-linux's setpriv is needed to drop the capabilities"
        prefix = [setpriv, "--bounding-set=-setuid,-setgid"]
    return [*prefix, *no_namespaces.wrapper(landlock=False)]


@pytest.fixture(scope="module", params=sorted(SETUPS))
def linked(request, tmp_path_factory):
    args, wrapper = SETUPS[request.param]
    arena = make_arena(tmp_path_factory.mktemp("redteam-links"))
    files = [arena.render("redteam_link_outside"), arena.render("redteam_fchmod_outside"), arena.sibling()]
    return arena, run_cli(arena, files, *args, wrapper=_wrapper(wrapper)), files


def test_the_file_outside_is_unchanged(linked):
    arena, run, files = linked
    assert arena.changed_decoys() == [], arena.changed_decoys()
    assert arena.litter() == [] and arena.new_entries() == []


def test_graded_as_the_starter_and_the_sibling_passes(linked):
    _arena, run, files = linked
    data = report(run, files)
    for name in ("redteam_link_outside.py", "redteam_fchmod_outside.py"):
        entry = by_file(data)[name]
        assert_forged_nothing(entry)
        assert crit(entry, "executavel")["passed"], f"{name} did not run to the end: " + brief(entry)
    assert_sibling_passes(data, files[-1])
    assert run.leftovers == []
