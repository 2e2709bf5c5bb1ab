"""Red team: system calls newer than the libseccomp the filter is built with. libseccomp 2.5 names no
call past number 453, and a filter whose default is to allow let every newer one through: the
extended-attribute "at" calls (setxattrat, getxattrat, listxattrat, removexattrat; Linux 6.13),
file_getattr/file_setattr (6.17), open_tree_attr (6.15), listmount and statmount (6.8). In reduced mode
they took a path the supervisor never saw: a submission read and changed the extended attributes of a
file in the machine's /tmp (Landlock does not cover extended attributes; run by an ordinary user, the
CLI's user's own files anywhere would be in reach the same way). Every number past what libseccomp
knows now answers ENOSYS, in both modes, as on an older kernel."""

from __future__ import annotations

import os
import re
import secrets

import pytest

from advkit import (ISOLATION_MODES, assert_forged_nothing, assert_sibling_passes, by_file, make_arena, mode_args,
                    mode_id, report, run_cli)

CALLS = ("getxattrat", "listxattrat", "file_getattr", "file_setattr", "setxattrat", "removexattrat",
         "open_tree_attr", "listmount")


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def attacked(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("redteam-newcalls"))
    token = "xattr-" + secrets.token_hex(8)
    # In the machine's /tmp, open to all, as a shared scratch file of another program may be.
    decoy = f"/tmp/adv-isca-xattr-{secrets.token_hex(4)}"
    fd = os.open(decoy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    os.close(fd)
    os.chmod(decoy, 0o666)
    try:
        os.setxattr(decoy, "user.segredo", token.encode())
    except OSError as exc:
        os.unlink(decoy)
        pytest.skip(f"a /tmp desta máquina não guarda atributos estendidos: {exc}")
    try:
        files = [arena.render("redteam_new_syscalls", decoy=decoy), arena.sibling()]
        run = run_cli(arena, files, *mode_args(request.param))
        attrs = {name: os.getxattr(decoy, name) for name in os.listxattr(decoy)}
    finally:
        os.unlink(decoy)
    return run, files, token, attrs


def test_the_decoys_attributes_are_untouched(attacked):
    _run, _files, token, attrs = attacked
    assert attrs == {"user.segredo": token.encode()}, attrs


def test_nothing_of_the_decoy_reaches_the_report(attacked):
    run, _files, token, _attrs = attacked
    assert token not in run.out + run.err


def test_every_newer_call_is_refused(attacked):
    run, _files, _token, _attrs = attacked
    results = dict(re.findall(r"run-(\w+):(\w+)", run.out))
    assert set(results) == set(CALLS), run.out[-2000:]
    succeeded = sorted(name for name, value in results.items() if value == "ok")
    assert not succeeded, f"{succeeded}: " + run.out[run.out.find("NEWCALLS"):][:600]


def test_graded_as_the_starter_and_the_sibling_passes(attacked):
    run, files, _token, _attrs = attacked
    data = report(run, files)
    entry = by_file(data)["redteam_new_syscalls.py"]
    assert_forged_nothing(entry)
    assert_sibling_passes(data, files[-1])
    assert run.leftovers == []
