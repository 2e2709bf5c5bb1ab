"""multiprocessing as a student uses it (Pool, Queue, Lock, Manager, shared_memory) works in both
modes, each run with a private writable /dev/shm swept after it. Checked from outside: a second
run in the same sandbox finds nothing of the first's /dev/shm, the machine's /dev/shm keeps its
decoy and gets no new name, and no process of the runs is left after the CLI."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest

from advkit import (CODE_CRITERIA, ISOLATION_MODES, brief, by_file, crit, make_arena, mode_args, mode_id, report,
                    run_cli)

HOST_SHM = Path("/dev/shm")
LIMIT = 8


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def shm_runs(request, tmp_path_factory):
    token = secrets.token_hex(6)
    decoy, new = f"isca-{token}", f"novo-{token}"
    (HOST_SHM / decoy).write_text("DECOY", encoding="utf-8")
    try:
        arena = make_arena(tmp_path_factory.mktemp("shm"))
        files = [arena.render("shm_plant", "a_planta.py", decoy=decoy, new=new),
                 arena.render("shm_snoop", "b_espia.py", decoy=decoy, new=new)]
        run = run_cli(arena, files, *mode_args(request.param), "--timeout", str(LIMIT), timeout=240, jobs=1)
        decoy_after = (HOST_SHM / decoy).read_text(encoding="utf-8") if (HOST_SHM / decoy).exists() else None
        created = (HOST_SHM / new).exists() or any(arena.uid in p.name for p in HOST_SHM.iterdir())
    finally:
        for name in (decoy, new):
            try:
                (HOST_SHM / name).unlink()
            except FileNotFoundError:
                pass
    return arena, run, files, decoy_after, created


def test_multiprocessing_works_and_grades_honestly(shm_runs):
    arena, run, files, _decoy, _created = shm_runs
    entry = by_file(report(run, files))["a_planta.py"]
    # Pool, Queue, Lock, Manager and shared_memory ran and every save is judged right...
    assert all(crit(entry, cid)["passed"] for cid in CODE_CRITERIA if cid != "executavel"), brief(entry)
    # ...but its planted sleeper was still alive at the limit: the run did not end in time.
    assert not crit(entry, "executavel")["passed"] and "ainda estava vivo" in crit(entry, "executavel")["message"]


def test_next_run_sees_nothing_of_the_first(shm_runs):
    arena, run, files, _decoy, _created = shm_runs
    entry = by_file(report(run, files))["b_espia.py"]
    assert crit(entry, "escrita-atomica")["passed"], "the second run found the first's /dev/shm: " + brief(entry)


def test_machine_shm_unchanged(shm_runs):
    _arena, _run, _files, decoy_after, created = shm_runs
    assert decoy_after == "DECOY" and not created


def test_no_process_left(shm_runs):
    _arena, run, _files, _decoy, _created = shm_runs
    assert run.leftovers == [], run.leftovers[:3]
