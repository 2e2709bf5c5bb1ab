"""How reduced mode's supervisor names /tmp (graders/trace/kernel/target.py), checked on
the resolution alone: every route into the machine's /tmp lands in the run's temp folder, the run's
own folders keep their real names even when they lie under /tmp (a machine without /dev/shm), and
bubblewrap mode maps nothing (its /tmp is already the run's)."""

from __future__ import annotations

import os

import pytest

from graders.trace.kernel.errors import Refused
from graders.trace.kernel.supervisor import Supervisor
from graders.trace.kernel.target import Task


@pytest.fixture
def folders(tmp_path):
    # Under the machine's /tmp on purpose: the roots' real names there must never be mapped.
    assert str(tmp_path).startswith("/tmp/")
    work, tmp = tmp_path / "w", tmp_path / "t"
    work.mkdir()
    tmp.mkdir()
    return str(work), str(tmp)


def _sup(folders, reduced=True):
    work, tmp = folders
    return Supervisor([("work", work), ("tmp", tmp)], reduced=reduced, source="", filename="x.py", job={})


def _resolve(sup, path, follow=True):
    return sup.resolve(Task(os.getpid()), -100, path.encode(), follow)


def test_every_route_into_tmp_lands_in_the_runs_folder(folders):
    work, tmp = folders
    sup = _sup(folders)
    assert _resolve(sup, "/tmp/x") == (tmp, "x") and sup.tmp_hit
    assert _resolve(sup, "//tmp/./x") == (tmp, "x")
    assert _resolve(sup, "/tmp/../tmp/x") == (tmp, "x")
    assert _resolve(sup, "/proc/self/root/tmp/x") == (tmp, "x")
    assert _resolve(sup, "/tmp") == os.path.split(tmp)  # the folder itself stands for /tmp
    os.symlink("/tmp/y", os.path.join(work, "atalho"))
    assert _resolve(sup, os.path.join(work, "atalho")) == (tmp, "y") and sup.tmp_hit


def test_the_parent_of_the_runs_tmp_is_the_root(folders):
    _work, tmp = folders
    sup = _sup(folders)
    assert _resolve(sup, "/tmp/../etc/passwd") == ("/etc", "passwd")
    assert _resolve(sup, tmp + "/../../etc/passwd") == ("/etc", "passwd")
    os.symlink("../etc/hostname", os.path.join(tmp, "fora"))
    assert _resolve(sup, "/tmp/fora") == ("/etc", "hostname")  # out of it: followed, the fenced look thread opens it


def test_the_runs_folders_keep_their_real_names(folders):
    work, tmp = folders
    sup = _sup(folders)
    assert _resolve(sup, work + "/f") == (work, "f") and not sup.tmp_hit
    assert _resolve(sup, tmp + "/f") == (tmp, "f") and not sup.tmp_hit


def test_a_missing_folder_in_the_runs_tmp_is_missing(folders):
    sup = _sup(folders)
    with pytest.raises(Refused):
        _resolve(sup, "/tmp/nao-existe/x")
    assert sup.tmp_hit  # the answer came from the run's folder, not the machine's /tmp


def test_bubblewrap_mode_maps_nothing(folders):
    sup = _sup(folders, reduced=False)
    assert _resolve(sup, "/tmp/x") == ("/tmp", "x") and not sup.tmp_hit


def test_a_working_folder_in_the_machines_dev_shm_is_the_runs(folders, monkeypatch):
    # chdir is the kernel's (looks.py): a cwd in the machine's /dev/shm leads, as under bubblewrap, to
    # the run's own /dev/shm for every later call, as a cwd in the machine's /tmp leads to its /tmp.
    work, tmp = folders
    shm = os.path.join(os.path.dirname(work), "s")
    os.mkdir(shm)
    sup = Supervisor([("work", work), ("tmp", tmp), ("shm", shm)], reduced=True, source="", filename="x.py", job={})
    assert _resolve(sup, "/dev/shm/x") == (shm, "x")
    monkeypatch.chdir("/dev/shm")
    assert _resolve(sup, "x") == (shm, "x")


def test_the_runs_folders_in_dev_shm_keep_their_real_names(monkeypatch):
    # The grading folder on the machine's tmpfs (/dev/shm, faster): the runner's own cwd is there.
    import shutil
    import tempfile

    base = tempfile.mkdtemp(dir="/dev/shm")
    try:
        roots = [(role, os.path.join(base, role)) for role in ("work", "tmp", "shm")]
        for _role, path in roots:
            os.mkdir(path)
        sup = Supervisor(roots, reduced=True, source="", filename="x.py", job={})
        work, shm = roots[0][1], roots[2][1]
        monkeypatch.chdir(work)
        assert _resolve(sup, "f") == (work, "f")
        assert _resolve(sup, "/dev/shm/x") == (shm, "x")
        monkeypatch.chdir(shm)
        assert _resolve(sup, "f") == (shm, "f")
    finally:
        shutil.rmtree(base)
