"""Class 1: a submission writes, deletes or renames files outside its own folder.

The attack (attacks/escape_files.py) is the starter plus every escape route we know:
absolute paths, `dir_fd=` relative to an fd on "/", symlinks (including one whose target
is judged from a deep cwd), `os.chdir('..')`, hardlinks, renames, `/proc/<pid>/cwd` of the
CLI, inherited descriptors. Effects are checked from outside, after the CLI returned.
"""

from __future__ import annotations

import pytest

from advkit import (
    ISOLATION_MODES, assert_forged_nothing, assert_sibling_passes, by_file, make_arena, mode_args, mode_id, report, run_cli,
)


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def escape(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("escape"))
    sibling = arena.sibling()
    attack = arena.render("escape_files", sibling=sibling)
    files = [attack, sibling]
    run = run_cli(arena, files, *mode_args(request.param))
    litter = arena.litter()
    return arena, run, files, litter


def test_report_lists_every_file(escape):
    arena, run, files, _ = escape
    report(run, files)


def test_decoys_outside_the_folder_are_unchanged(escape):
    arena, run, files, _ = escape
    assert arena.changed_decoys() == [], "escaped writes:\n" + "\n".join(arena.changed_decoys())


def test_nothing_created_or_removed_outside(escape):
    arena, run, files, _ = escape
    assert arena.new_entries() == []


def test_graders_copy_is_untouched(escape):
    arena, run, files, _ = escape
    assert not arena.grader_copy_changed(), "the attack modified the instructor's graders/ copy"


def test_no_litter_in_shared_temporary_folders(escape):
    arena, run, files, litter = escape
    assert litter == []


def test_sibling_still_passes(escape):
    arena, run, files, _ = escape
    assert_sibling_passes(report(run, files), files[1])


def test_attack_does_not_pass(escape):
    arena, run, files, _ = escape
    assert_forged_nothing(by_file(report(run, files))["escape_files.py"])
