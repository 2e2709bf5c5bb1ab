"""Honest code that only looks at paths gets the same answers in both modes once its code runs: in
reduced mode the supervisor performs those calls itself, in a thread fenced as the run is
(graders/trace/kernel/looks.py), and forks the run from that thread so the run's own /proc entries
stay within reach of it (Landlock lets a domain reach /proc/<pid> only of its own or nested domains).
Imports, reading the work folder, stat/access/readlink/listdir/exists on the work folder, /tmp and
system paths, the run's own /proc/self files: compared with what bubblewrap mode's kernel answers."""

from __future__ import annotations

import json
import shutil

import pytest

from graders.sandbox.sandbox import Sandbox

JOB = {"function": "save_checkpoint", "states": [{"n": 1}]}

PROBE = r'''
import errno, json, os, stat, sys

seen = {}


def probe(name, action):
    try:
        seen[name] = action()
    except OSError as exc:
        seen[name] = "E" + errno.errorcode.get(exc.errno, str(exc.errno))


def kind(path, follow=True):
    st = os.stat(path, follow_symlinks=follow)
    return [stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode) & 0o755]


def save_checkpoint(state):
    with open("dados.txt", "w") as f:
        f.write("conteúdo")
    os.mkdir("pasta")
    os.symlink("dados.txt", "elo")
    with open("/tmp/rascunho.txt", "w") as f:
        f.write("rascunho")
    probe("importa", lambda: [__import__(m).__name__ for m in ("decimal", "fractions", "csv", "xml.dom.minidom")])
    probe("le_trabalho", lambda: open("dados.txt", encoding="utf-8").read())
    probe("le_pelo_elo", lambda: open("elo", encoding="utf-8").read())
    probe("stat_trabalho", lambda: [kind("dados.txt"), kind("pasta"), kind("elo", False), kind(".")])
    probe("access_trabalho", lambda: [os.access("dados.txt", m) for m in (os.R_OK, os.W_OK, os.X_OK, os.F_OK)])
    probe("readlink_trabalho", lambda: os.readlink("elo"))
    probe("readlink_arquivo", lambda: os.readlink("dados.txt"))
    probe("lista_trabalho", lambda: sorted(os.listdir(".")))
    probe("existe", lambda: [os.path.exists(p) for p in ("dados.txt", "nada", "/usr", "/usr/bin/env", "/nada",
                                                         "/tmp", "/tmp/rascunho.txt", "/tmp/nada", "/proc/self/status")])
    probe("stat_tmp", lambda: [kind("/tmp"), kind("/tmp/rascunho.txt"), os.stat("/tmp/rascunho.txt").st_size])
    probe("le_tmp", lambda: open("/tmp/rascunho.txt").read())
    probe("lista_tmp", lambda: sorted(os.listdir("/tmp")))
    probe("access_tmp", lambda: [os.access("/tmp", os.W_OK), os.access("/tmp/rascunho.txt", os.R_OK)])
    probe("stat_sistema", lambda: [kind("/usr"), kind("/usr/bin"), kind("/usr/bin/env")])
    probe("access_sistema", lambda: [os.access("/usr/bin/env", os.X_OK), os.access("/usr", os.W_OK)])
    probe("lista_stdlib", lambda: [n in os.listdir(os.path.dirname(os.__file__)) for n in ("json", "os.py")])
    probe("le_stdlib", lambda: len(open(os.__file__, encoding="utf-8").read()) > 1000)
    probe("proc_status", lambda: open("/proc/self/status").read()[:5])
    probe("proc_fd", lambda: sorted(os.listdir("/proc/self/fd")))
    probe("proc_maps", lambda: [kind("/proc/self/maps"), len(open("/proc/self/maps").read()) > 0])
    probe("proc_fd_link", lambda: os.readlink("/proc/self/fd/0"))
    probe("proc_self_link", lambda: [os.readlink("/proc/self") == str(os.getpid()), kind("/proc/self", False)])
    probe("proc_cwd", lambda: os.path.samefile("/proc/self/cwd", "."))
    probe("dev_null", lambda: [open("/dev/null").read(), kind("/dev/null")])
    print("HONEST " + json.dumps(seen, sort_keys=True))
'''


@pytest.fixture(scope="module")
def seen():
    out = {}
    for mode in ("reduced", "isolated"):
        if mode == "isolated" and not shutil.which("bwrap"):
            continue
        with Sandbox(isolated=mode == "isolated") as box:
            trace = box.run(PROBE, "aluno.py", JOB, timeout=60.0)
        line = next((x for x in trace.output.splitlines() if x.startswith("HONEST ")), None)
        assert line, (mode, trace.end, trace.output[-3000:])
        refused = [e.payload for e in trace.events if e.kind == "refused"]
        out[mode] = (json.loads(line[len("HONEST "):]), refused)
    return out


def test_reduced_mode_answers_honest_looks(seen):
    got, refused = seen["reduced"]
    assert not refused, refused
    assert got["importa"] == ["decimal", "fractions", "csv", "xml"], got
    assert got["le_trabalho"] == got["le_pelo_elo"] == "conteúdo"
    assert got["readlink_trabalho"] == "dados.txt" and got["readlink_arquivo"] == "EEINVAL"
    assert got["proc_status"] == "Name:" and got["proc_maps"][1] is True and got["proc_cwd"] is True
    assert got["proc_fd"][:4] == ["0", "1", "2", "3"], got["proc_fd"]
    assert got["le_tmp"] == "rascunho" and got["lista_tmp"] == ["rascunho.txt"]


def test_both_modes_answer_the_same(seen):
    if len(seen) < 2:
        pytest.skip("bwrap indisponível")
    assert seen["reduced"][0] == seen["isolated"][0]
