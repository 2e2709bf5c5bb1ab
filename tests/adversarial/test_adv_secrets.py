"""Class 4: a submission reads what it must not see and smuggles it into the report.

Secrets planted for each run: an environment variable of the CLI (SEGREDO_DO_PROFESSOR),
a file in the CLI's cwd, a file in $HOME, a file beside the submissions, the sibling
submission's source text (a unique token), and the host's /etc/passwd. Channels: the
exception message of run_agent, print, the content of checkpoint.json, a checkpoint.json
that is a symlink to the secret (for a judge that reads the folder from outside), and the
network (a TCP server and an abstract unix socket listening on the host).
"""

from __future__ import annotations

import socket
import threading

import pytest

from advkit import (
    ISOLATION_MODES, assert_sibling_passes, brief, by_file, make_arena, mode_args, mode_id, report, run_cli, leaked,
)


BASIC = "environ,proc_environs,files,proc_roots"


class _Listener:
    """TCP + UDP on 127.0.0.1 and an abstract unix socket; records anything that arrives."""

    def __init__(self, marker):
        self.received = []
        self.tcp = socket.socket(); self.tcp.bind(("127.0.0.1", 0)); self.tcp.listen(16)
        self.port = self.tcp.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); self.udp.bind(("127.0.0.1", self.port))
        self.unix = socket.socket(socket.AF_UNIX); self.unix.bind("\0" + marker + "-sock"); self.unix.listen(16)
        for sock in (self.tcp, self.unix):
            threading.Thread(target=self._accept, args=(sock,), daemon=True).start()
        threading.Thread(target=self._udp, daemon=True).start()

    def _accept(self, sock):
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            conn.settimeout(1)
            try:
                self.received.append(("stream", conn.recv(200)))
            except OSError:
                self.received.append(("stream", b""))
            conn.close()

    def _udp(self):
        while True:
            try:
                self.received.append(("udp", self.udp.recv(200)))
            except OSError:
                return

    def close(self):
        for sock in (self.tcp, self.udp, self.unix):
            sock.close()


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def secrets_run(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("secrets"))
    listener = _Listener(arena.params["MARKER"])
    sibling = arena.sibling()
    files = [
        arena.render("leak_everything", "leak_env_files.py", sibling=sibling, techniques=BASIC),
        arena.render("leak_everything", "leak_proc_mem.py", sibling=sibling, techniques="proc_mem"),
        arena.render("leak_everything", "leak_own_heap.py", sibling=sibling, techniques="own_heap"),
        arena.render("leak_via_checkpoint", sibling=sibling, techniques=BASIC),
        arena.render("leak_symlink_checkpoint", "link_home.py", target=arena.home / "segredo.txt"),
        arena.render("leak_symlink_checkpoint", "link_cwd.py", target=arena.instructor / "segredo-do-professor.txt"),
        arena.render("leak_symlink_checkpoint", "link_passwd.py", target="/etc/passwd"),
        arena.render("leak_symlink_checkpoint", "link_relative.py",
                     target="../" * 40 + str(arena.outside / "segredo.txt").lstrip("/")),
        arena.render("net_exfiltrate", port=listener.port),
        sibling,
    ]
    run = run_cli(arena, files, *mode_args(request.param))
    listener.close()
    return arena, run, files, listener


def test_report_lists_every_file(secrets_run):
    arena, run, files, _ = secrets_run
    report(run, files)


def test_no_secret_in_stdout_or_stderr(secrets_run):
    arena, run, files, _ = secrets_run
    found = leaked(arena, run)
    where = {Path_name(e): brief(e) for e in report(run, files)} if not run.timed_out else {}
    assert found == [], f"secrets in the report: {found}\n" + "\n".join(f"{k}: {v[:400]}" for k, v in where.items())


def test_exfiltration_channel_reaches_the_report(secrets_run):
    """Self-check of this test: the canary (not a secret) makes it to the report, so the
    channel the attacks use is open and the test above is not vacuous."""
    arena, run, files, _ = secrets_run
    assert arena.params["CANARY"] in run.out, "canary missing: the secret test may be vacuous"


def test_nothing_reaches_the_network(secrets_run):
    arena, run, files, listener = secrets_run
    assert listener.received == [], f"connections received from a submission: {listener.received[:3]}"


def test_sibling_still_passes(secrets_run):
    arena, run, files, _ = secrets_run
    assert_sibling_passes(report(run, files), files[-1])


def test_attacks_do_not_pass(secrets_run):
    arena, run, files, _ = secrets_run
    passed = [e["file"] for e in report(run, files)[:-1] if e["passed"]]
    assert passed == []


def Path_name(entry):
    return entry["file"].rsplit("/", 1)[-1]
