"""Class 6: the in-place (non-atomic) write hidden from the crash simulator.

Each attack keeps points A and B right but overwrites checkpoint.json in place through a
route a Python-level tracer may miss (os.pwritev, dup'ed descriptors, mmap, a thread,
io.FileIO, _io.open/posix.write captured before hooks, /proc/self/fd, kernel-side copies,
a symlinked target), or only misbehaves on the first run of a process, or only when it does
not see instrumentation. All must fail escrita-atomica.
"""

from __future__ import annotations

import pytest

from advkit import (
    MODES, assert_sibling_passes, brief, by_file, crit, make_arena, mode_args, mode_id, report, run_cli,
)

ATTACKS = [
    "unhooked_pwritev", "unhooked_dup", "unhooked_mmap", "unhooked_thread", "unhooked_fileio",
    "unhooked_io_open", "unhooked_proc_fd", "unhooked_copy_range", "unhooked_symlink_target",
    "unhooked_first_run",
]


@pytest.fixture(scope="module", params=MODES, ids=mode_id)
def unhooked(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("unhooked"))
    files = [arena.render(name) for name in ATTACKS] + [arena.sibling()]
    run = run_cli(arena, files, *mode_args(request.param), timeout=300)
    return arena, run, files


def test_report_lists_every_file(unhooked):
    arena, run, files = unhooked
    report(run, files)


@pytest.mark.parametrize("name", ATTACKS)
def test_in_place_write_fails_escrita_atomica(unhooked, name):
    arena, run, files = unhooked
    entry = by_file(report(run, files))[f"{name}.py"]
    assert "error" not in entry, brief(entry)
    assert crit(entry, "escrita-atomica")["passed"] is False, f"{name} passed escrita-atomica: " + brief(entry)
    assert entry["passed"] is False


def test_sibling_still_passes(unhooked):
    arena, run, files = unhooked
    assert_sibling_passes(report(run, files), files[-1])
