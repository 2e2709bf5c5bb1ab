"""The container case, on every run: the CLI in `auto` mode under a filter that refuses namespaces
as Docker's default profile does (tests/no_namespaces.py). bubblewrap is refused there, so the CLI
falls back to reduced mode, and reduced mode's own fences must hold: no root identity, no host file
(/etc/shadow, /root, /etc/passwd), no root-owned socket, no network, no signal out of the run, and
the report says which fences held. The corpus verdicts under the same filter: test_container_corpus.py."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import tempfile
import threading

import pytest

import no_namespaces
from advkit import CONTAINER, assert_sibling_passes, leaked, make_arena, mode_args, report, run_cli

from graders.trace.kernel import landlock

ROOT = os.getuid() == 0


class _Sockets:
    """A TCP listener on 127.0.0.1 and a root-owned UNIX socket (as Docker's is) in a folder anyone
    may enter; records whatever connects."""

    def __init__(self):
        self.received = []
        self.tcp = socket.socket()
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(8)
        self.port = self.tcp.getsockname()[1]
        self.folder = tempfile.mkdtemp(prefix="conteiner-sock-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        os.chmod(self.folder, 0o755)
        self.path = os.path.join(self.folder, "docker.sock")
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(self.path)
        os.chmod(self.path, 0o660)
        self.unix.listen(8)
        for sock in (self.tcp, self.unix):
            threading.Thread(target=self._accept, args=(sock,), daemon=True).start()

    def _accept(self, sock):
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            self.received.append(sock.family)
            conn.close()

    def close(self):
        self.tcp.close()
        self.unix.close()
        os.unlink(self.path)
        os.rmdir(self.folder)


@pytest.fixture(scope="module")
def container_run(tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("conteiner"))
    sockets = _Sockets()
    sibling = arena.sibling()
    files = [arena.render("container_identity", port=sockets.port, socket=sockets.path),
             arena.render("leak_everything", "leak_env_files.py", sibling=sibling,
                          techniques="environ,proc_environs,files,proc_roots"),
             sibling]
    try:
        run = run_cli(arena, files, *mode_args(CONTAINER))
    finally:
        sockets.close()
    return arena, run, files, sockets


def _message(run, files) -> str:
    entry = report(run, files)[0]
    return " ".join(c["message"] for c in entry["criteria"])


def test_falls_back_with_one_warning_naming_the_fences(container_run):
    _arena, run, files, _ = container_run
    warnings = [line for line in run.err.splitlines() if line.strip()]
    assert len(warnings) == 1, warnings
    assert "reduzido" in warnings[0] and "bwrap" in warnings[0]
    assert "Landlock: " + ("sim" if landlock.abi() else "não") in warnings[0], warnings[0]
    assert "outro usuário: " + ("sim" if ROOT else "não") in warnings[0], warnings[0]


def test_report_lists_the_fences_in_effect(container_run):
    _arena, run, files, _ = container_run
    meta = json.loads(run.out)["report"]
    assert meta["isolation"] == "reduzido"
    assert meta["fences"] == {"bubblewrap": False, "landlock": landlock.abi(), "uid_drop": ROOT, "seccomp": True}
    assert "Landlock" in meta["fences_text"]


def test_submission_is_not_root(container_run):
    _arena, run, files, _ = container_run
    text = _message(run, files)
    ids = {k: v for k, v in re.findall(r"\b(uid|euid|gid)=(\d+)", text)}
    assert set(ids) == {"uid", "euid", "gid"}, f"the attack's report is missing: {text[:500]}"
    if ROOT:
        assert "0" not in ids.values(), text[:500]
        assert "groups=[]" in text, text[:500]


def test_host_files_stay_out(container_run):
    _arena, run, files, _ = container_run
    text = _message(run, files)
    if not landlock.abi():
        # A kernel without Landlock: reads are not fenced, and the report must say so in plain words.
        assert "pode ler tudo" in json.loads(run.out)["report"]["fences_text"]
        return
    for what in ("shadow", "passwd", "root"):
        assert re.search(rf"\b{what}=PermissionError\b", text), f"{what}: {text[:600]}"
    if ROOT:
        shadow = open("/etc/shadow").read().splitlines()
        assert not any(line and line in run.out for line in shadow)
        names = [n for n in os.listdir("/root") if len(n) > 4]
        assert not any(repr(n) in run.out for n in names), "root's home folder listed in the report"
    assert leaked(_arena, run) == []


def test_no_network_no_root_socket_no_signal_out(container_run):
    _arena, run, files, sockets = container_run
    text = _message(run, files)
    assert sockets.received == [], sockets.received
    assert "conectou" not in text, text[:600]
    assert "kill1=ok" not in text and "killparent=ok" not in text, text[:600]


def test_channel_works_and_nothing_is_left_running(container_run):
    arena, run, files, _ = container_run
    assert arena.params["CANARY"] in run.out, "the attack's message never reached the report: the test is vacuous"
    assert run.leftovers == [], run.leftovers
    assert_sibling_passes(report(run, files), files[-1])


def test_without_landlock_it_still_grades_and_says_what_is_not_fenced(tmp_path):
    """A kernel without Landlock (or a profile refusing it): reduced mode grades all the same, and
    the warning and the report say plainly that reads are not fenced."""
    arena = make_arena(tmp_path)
    files = [arena.starter_copy(), arena.sibling()]
    run = run_cli(arena, files, wrapper=no_namespaces.wrapper(landlock=False))
    assert [e["passed"] for e in report(run, files)] == [False, True]
    meta = json.loads(run.out)["report"]
    assert meta["fences"] == {"bubblewrap": False, "landlock": None, "uid_drop": ROOT, "seccomp": True}
    for text in (meta["fences_text"], run.err):
        assert "Landlock: não (o código dos alunos pode ler tudo o que o usuário da CLI lê" in text, text


def test_root_that_cannot_change_user_still_fences_reads(tmp_path):
    """Root without CAP_SETUID/CAP_SETGID (`docker run --cap-drop ...`): no other user to run as, so
    the submission runs as root without capabilities, fenced by Landlock alone, and the report says so.
    (Run as another user, this is the ordinary unprivileged case: the same promises hold.)"""
    arena = make_arena(tmp_path)
    sockets = _Sockets()
    files = [arena.render("container_identity", port=sockets.port, socket=sockets.path), arena.sibling()]
    wrapper = []
    if ROOT:
        setpriv = shutil.which("setpriv")
        assert setpriv, "util-linux's setpriv is needed to drop the capabilities"
        wrapper = [setpriv, "--bounding-set=-setuid,-setgid"]
    try:
        run = run_cli(arena, files, wrapper=[*wrapper, *no_namespaces.wrapper()])
    finally:
        sockets.close()
    assert_sibling_passes(report(run, files), files[-1])
    meta = json.loads(run.out)["report"]
    assert meta["fences"] == {"bubblewrap": False, "landlock": landlock.abi(), "uid_drop": False, "seccomp": True}
    assert "outro usuário: não" in meta["fences_text"]
    text = _message(run, files)
    if landlock.abi():
        for what in ("shadow", "passwd", "root"):
            assert re.search(rf"\b{what}=PermissionError\b", text), f"{what}: {text[:600]}"
    assert "conectou" not in text and sockets.received == []
    assert leaked(arena, run) == [] and run.leftovers == []
