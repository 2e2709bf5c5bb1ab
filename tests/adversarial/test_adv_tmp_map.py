"""The run's /tmp in both modes: under bubblewrap a tmpfs of its own, in reduced mode the run's own
temp folder standing in for the machine's /tmp (graders/trace/kernel/target.py maps the names,
graders/trace/kernel/looks.py performs the calls that only look, in a thread fenced as the run is). One probe names
/tmp every way we know (absolute, `..`, a folder descriptor, O_PATH and /proc/self/fd, a link inside
it pointing out, renameat2 and link across, a path flipped by another thread during the call) and
reports what it saw; the two modes must see the same, and the machine's /tmp, checked from outside,
keeps its decoy unchanged and gets nothing of the run's."""

from __future__ import annotations

import json
import os
import secrets
import shutil
from pathlib import Path

import pytest

from graders.sandbox.sandbox import Sandbox

JOB = {"function": "save_checkpoint", "states": [{"n": 1}]}
SECRET = "segredo do professor em /tmp"

PROBE = r'''
import ctypes, errno, json, os, shutil, threading

TOKEN = "@@TOKEN@@"
DECOY, OTHER, OUT = "/tmp/isca-" + TOKEN, "/tmp/outro-" + TOKEN, "/tmp/fora-" + TOKEN
libc = ctypes.CDLL(None, use_errno=True)
seen = {}


def probe(name, action):
    try:
        seen[name] = action()
    except OSError as exc:
        seen[name] = errno.errorcode.get(exc.errno, exc.errno)


def read(path, **kw):
    with open(path, **kw) as f:
        return f.read()


def write(path, text, mode="w"):
    with open(path, mode) as f:
        f.write(text)
    return "ok"


def flip(buf, a, b, stop):
    while not stop.is_set():
        buf.value = a
        buf.value = b


def flipped(a, b, call, times=300):
    """`call(buffer)` many times while another thread rewrites the buffer between a and b."""
    buf = ctypes.create_string_buffer(max(len(a), len(b)) + 1)
    buf.value = a
    stop = threading.Event()
    thread = threading.Thread(target=flip, args=(buf, a, b, stop))
    thread.start()
    out = []
    try:
        for _ in range(times):
            out.append(call(buf))
    finally:
        stop.set()
        thread.join()
    return out


def open_read(buf):
    fd = libc.open(buf, os.O_RDONLY)
    if fd < 0:
        return ""
    try:
        return os.read(fd, 4096).decode("utf-8", "replace")
    finally:
        os.close(fd)


def open_write(buf):
    fd = libc.open(buf, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    if fd >= 0:
        os.write(fd, b"x")
        os.close(fd)
    return fd >= 0


def save_checkpoint(state):
    probe("le_isca", lambda: read(DECOY))
    probe("stat_isca", lambda: os.stat(DECOY).st_size)
    probe("existe_por_ponto_ponto", lambda: os.path.exists("/tmp/../tmp/isca-" + TOKEN))
    probe("escreve_por_ponto_ponto", lambda: write("/tmp/../tmp/isca-" + TOKEN, "aluno"))
    probe("le_de_volta", lambda: read(DECOY))
    probe("lista_tmp", lambda: sorted(os.listdir("/tmp")))
    probe("lista_tmp_barra_dupla", lambda: sorted(os.listdir("//tmp/.")))
    probe("raiz_acima_de_tmp", lambda: os.path.samefile("/tmp/..", "/"))
    probe("access", lambda: [os.access(DECOY, os.R_OK), os.access(DECOY, os.X_OK), os.access(OTHER, os.F_OK)])
    probe("readlink_de_arquivo", lambda: os.readlink(DECOY))
    probe("arvore", lambda: (os.makedirs("/tmp/d-" + TOKEN + "/e"), open("/tmp/d-" + TOKEN + "/e/f", "w").close(),
                             sorted(f for _, _, fs in os.walk("/tmp") for f in fs),
                             shutil.rmtree("/tmp/d-" + TOKEN), sorted(os.listdir("/tmp")))[2:])
    probe("outro_disco", lambda: os.stat("/tmp").st_dev != os.stat(".").st_dev)
    probe("replace_para_o_trabalho", lambda: os.replace(DECOY, "checkpoint.json"))
    probe("link_para_o_trabalho", lambda: os.link(DECOY, "copia"))
    probe("link_do_trabalho", lambda: (write("meu", "m"), os.link("meu", OTHER))[1])
    RENAME_EXCHANGE = 2
    probe("renameat2_troca", lambda: libc.renameat2(-100, DECOY.encode(), -100, b"meu", RENAME_EXCHANGE) and
          -ctypes.get_errno())
    folder = os.open("/tmp", os.O_RDONLY | os.O_DIRECTORY)
    probe("dir_fd_le", lambda: os.read(os.open("isca-" + TOKEN, os.O_RDONLY, dir_fd=folder), 100).decode())
    probe("dir_fd_sobe_e_volta", lambda: os.write(os.open("../tmp/isca-" + TOKEN, os.O_WRONLY | os.O_APPEND,
                                                          dir_fd=folder), b"+"))
    path_fd = os.open("/tmp", os.O_PATH)
    probe("o_path_proc_self_fd", lambda: read(f"/proc/self/fd/{path_fd}/isca-" + TOKEN))
    probe("proc_self_root", lambda: read("/proc/self/root/tmp/isca-" + TOKEN))
    probe("link_dentro_aponta_para_fora_escrita", lambda: (os.symlink("../etc/motd-" + TOKEN, OUT),
                                                            write(OUT, "fora"))[1])
    probe("link_dentro_aponta_para_fora_leitura", lambda: (os.symlink("../usr/lib/os-release", OUT + "-le"),
                                                            len(read(OUT + "-le")) > 0)[1])
    probe("chdir_tmp", lambda: (os.chdir("/tmp"), os.getcwd(), sorted(os.listdir(".")), os.path.exists("isca-" + TOKEN),
                                os.chdir(os.environ["HOME"]))[1:4])
    probe("chdir_pasta_feita_a_mao", lambda: (os.makedirs("/tmp/c-" + TOKEN), os.chdir("/tmp/c-" + TOKEN),
                                              os.chdir(os.environ["HOME"]), "ok")[3])
    probe("apaga_pasta_feita_a_mao", lambda: (shutil.rmtree("/tmp/c-" + TOKEN), "ok")[1])
    probe("flip_escrita", lambda: sum(flipped(DECOY.encode(), OTHER.encode(), open_write)) > 0)
    probe("flip_leitura_vazou", lambda: any(@@SECRET@@ in text for text in
                                            flipped(b"/usr/lib/os-release", DECOY.encode(), open_read)))
    print("TMPMAP " + json.dumps(seen, sort_keys=True))
'''
# What reduced mode answers differently, and why (PROFESSORES.md, "O que muda entre os dois modos"): chdir is
# the kernel's (the supervisor cannot move another process's working folder), so a folder made by
# hand under /tmp, which exists only in the run's own temp folder, is not found by it.
DIFFERENT = {"chdir_pasta_feita_a_mao"}


@pytest.fixture(scope="module")
def decoy():
    token = secrets.token_hex(6)
    path = Path("/tmp") / f"isca-{token}"
    path.write_text(SECRET)
    os.chmod(path, 0o644)  # readable by any user: only the fences keep it from the run
    before = path.stat()
    yield token, path, before
    for name in (f"isca-{token}", f"outro-{token}", f"fora-{token}"):
        try:
            os.unlink(Path("/tmp") / name)
        except FileNotFoundError:
            pass


@pytest.fixture(scope="module")
def seen(decoy):
    token, path, before = decoy
    source = PROBE.replace("@@TOKEN@@", token).replace("@@SECRET@@", repr(SECRET))
    out = {}
    for mode in ("isolated", "reduced"):
        if mode == "isolated" and not shutil.which("bwrap"):
            continue
        with Sandbox(isolated=mode == "isolated") as box:
            trace = box.run(source, "aluno.py", JOB, timeout=60.0)
        line = next((x for x in trace.output.splitlines() if x.startswith("TMPMAP ")), None)
        assert line, (mode, trace.end, trace.output[-3000:])
        out[mode] = (json.loads(line[7:]), trace)
        # Checked from outside after each run: the machine's /tmp is as it was.
        now = path.stat()
        assert path.read_text() == SECRET and (now.st_size, now.st_mtime_ns, now.st_ino) == (
            before.st_size, before.st_mtime_ns, before.st_ino), mode
        for name in (f"outro-{token}", f"fora-{token}", f"d-{token}", f"c-{token}"):
            assert not os.path.lexists(Path("/tmp") / name), (mode, name)
    return out


def test_the_machines_tmp_is_neither_read_nor_written(seen):
    for mode, (got, _trace) in seen.items():
        assert got["le_isca"] == "ENOENT" and got["stat_isca"] == "ENOENT", (mode, got)
        assert got["flip_leitura_vazou"] is False, mode
        assert got["flip_escrita"] is True, mode  # the writes landed, in the run's own /tmp


def test_the_runs_tmp_is_its_own_folder_on_another_file_system(seen):
    for mode, (got, _trace) in seen.items():
        assert got["escreve_por_ponto_ponto"] == "ok" and got["le_de_volta"] == "aluno", (mode, got)
        assert got["outro_disco"] is True and got["raiz_acima_de_tmp"] is True, (mode, got)
        for name in ("replace_para_o_trabalho", "link_para_o_trabalho", "link_do_trabalho"):
            assert got[name] == "EXDEV", (mode, name, got[name])
        assert got["renameat2_troca"] == -18, (mode, got)  # EXDEV
        assert got["o_path_proc_self_fd"].startswith("aluno+") and got["proc_self_root"].startswith("aluno+")


def test_both_modes_see_the_same_tmp(seen):
    if len(seen) < 2:
        pytest.skip("bwrap indisponível")
    isolated, reduced = seen["isolated"][0], seen["reduced"][0]
    same = {k: v for k, v in isolated.items() if k not in DIFFERENT}
    assert same == {k: v for k, v in reduced.items() if k not in DIFFERENT}


def test_what_reduced_mode_answers_differently_and_why(seen):
    got, trace = seen["reduced"]
    assert got["link_dentro_aponta_para_fora_escrita"] == "EACCES"  # outside the roots: both modes
    messages = [e.payload["message"] for e in trace.events if e.kind == "refused"]
    assert any("fora das pastas de trabalho" in m for m in messages), messages
    # A link inside /tmp pointing out of it is followed by the fenced look thread, as the kernel
    # follows it under bubblewrap; chdir into /tmp works and later names are mapped from there.
    assert got["link_dentro_aponta_para_fora_leitura"] is True, got
    assert got["chdir_tmp"][0] == "/tmp" and got["chdir_tmp"][2] is True, got
    assert got["chdir_pasta_feita_a_mao"] == "ENOENT" and got["apaga_pasta_feita_a_mao"] == "ok", got
    if "isolated" in seen:
        assert seen["isolated"][0]["chdir_pasta_feita_a_mao"] == "ok"
