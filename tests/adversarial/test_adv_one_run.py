"""Issue 15's hostile classes against the one-run judge: every submission here has BROKEN
checkpointing (in place, no point A, point B too late, tokensUsed assigned...) and a trick to look
right. Classes: forged reports (fake lines on the runner's channel, the runner's own objects), a
forged end, APIs a Python-level hook would miss, PID and first-run tricks, sampling gaps, decoys,
sandbox fingerprints. Each must fail the criterion its trick targets; an honest sibling graded in
the same batch passes; effects are checked from outside (the report, files on disk, processes).
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from advkit import (
    ROOT, assert_sibling_passes, brief, by_file, crit, make_arena, report, run_cli,
)
from graders.sandbox.sandbox import Sandbox, bwrap_problem

pytestmark = pytest.mark.skipif(bool(bwrap_problem()), reason="these attacks are judged in the bwrap sandbox")

STRICT = ("--isolamento", "estrito")
ATOMIC, POINTS, FIELDS, RUNS = "escrita-atomica", "ponto-a", "seis-campos", "executavel"

# (attack template, its parameters, the criteria its real bug must fail)
ATTACKS = {
    # forged reports
    "one_forge_channel.py": ("one_forge_channel", {}, [ATOMIC, POINTS]),
    "one_forge_closure.py": ("one_forge_closure", {}, [ATOMIC, POINTS]),
    # a forged end: exit0 hides an exception after the loop with a fake "ok" end and os._exit(0); its
    # checkpointing is the starter's and is judged from the trace. executavel is judged on trusted facts
    # only (final reply served, status 0), which that process does give: see test_forged_end_exit0.
    "one_forge_end_exit0.py": ("one_forge_end", {"when": "exit0"}, [ATOMIC, POINTS]),
    "one_forge_end_raise.py": ("one_forge_end", {"when": "raise"}, [RUNS]),
    "one_forge_end_exit1.py": ("one_forge_end", {"when": "exit1"}, [RUNS]),
    # APIs a Python-level hook would miss
    "one_unhooked_dirfd.py": ("one_unhooked_dirfd", {}, [ATOMIC]),
    "one_unhooked_writev.py": ("one_unhooked_writev", {}, [ATOMIC]),
    "one_unhooked_opener.py": ("one_unhooked_opener", {}, [ATOMIC]),
    "one_unhooked_subprocess.py": ("one_unhooked_subprocess", {}, [ATOMIC]),
    "one_unhooked_dup2.py": ("one_unhooked_dup2", {}, [ATOMIC]),
    "one_unhooked_procfd.py": ("one_unhooked_procfd", {}, [ATOMIC]),
    "one_unhooked_copyfileobj.py": ("one_unhooked_copyfileobj", {}, [ATOMIC]),
    "one_unhooked_mmap.py": ("one_unhooked_mmap", {}, [ATOMIC]),
    "one_unhooked_sendfile.py": ("one_unhooked_sendfile", {}, [ATOMIC]),
    "one_unhooked_thread.py": ("one_unhooked_thread", {}, [ATOMIC]),
    # first run: atomic only when a marker of an earlier run exists (none may)
    "one_run_marker.py": ("one_run_marker", {"mark": "MARCA_DA_PRIMEIRA_CORRECAO"}, [ATOMIC]),
    # sampling gaps
    "one_gap_failed_replaces.py": ("one_gap_failed_replaces", {}, [ATOMIC]),
    "one_gap_tiny_writes.py": ("one_gap_tiny_writes", {}, [ATOMIC]),
    "one_gap_late_b.py": ("one_gap_late_b", {}, [POINTS]),
    "one_gap_tokens_assign.py": ("one_gap_tokens_assign", {}, [FIELDS]),
    # decoys
    "one_decoy.py": ("one_decoy", {}, [ATOMIC, POINTS]),
}

# Signs of a grader the sandbox hides: code that is atomic only when it sees one must fail.
HIDDEN_SIGNS = ["uid", "passwd", "home", "flags", "nspid", "cwd", "hostname", "homedir", "env", "umask", "user_name",
                "pid", "proc1", "ppid"]
# Signs it still shows (PROFESSORES.md, "Com o bubblewrap"): such code passes. Strict xfails, so that hiding
# one turns its test red until it moves to HIDDEN_SIGNS.
KNOWN_SIGNS = {
    "seccomp": "/proc/self/status shows the seccomp filter",
    "orig_argv": "the runner is started as python -c <runner>: sys.orig_argv and /proc/self/cmdline show it",
    "mounts": "/proc/self/mountinfo shows bwrap's /newroot and /opt/corretor",
    "stdin": "stdin is /dev/null, where a student's terminal has a tty",
}


def _fp(sign):
    return f"one_fp_{sign}.py"


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("one_run"))
    files = [arena.render(attack, name, **params) for name, (attack, params, _t) in ATTACKS.items()]
    files += [arena.render("one_fp", _fp(sign), check=sign) for sign in [*HIDDEN_SIGNS, *KNOWN_SIGNS]]
    files.append(arena.sibling())
    run = run_cli(arena, files, *STRICT, timeout=400)
    return arena, run, files


def test_report_lists_every_file(batch):
    arena, run, files = batch
    report(run, files)
    assert run.returncode == 1


@pytest.mark.parametrize("name", list(ATTACKS))
def test_trick_fails_its_target(batch, name):
    arena, run, files = batch
    entry = by_file(report(run, files))[name]
    assert "error" not in entry, brief(entry)
    passed = [cid for cid in ATTACKS[name][2] if crit(entry, cid)["passed"]]
    assert not passed, f"{name} passed {passed}: " + brief(entry)
    assert entry["passed"] is False


def test_forged_end_exit0(batch):
    """The fake "ok" end and os._exit(0) change nothing the judge trusts: the in-place writes and the
    missing point A fail from the trace, and executavel follows the facts seen from outside (the final
    reply was served, the process ended by itself with status 0), exactly as for code that catches its
    own exception and exits 0; the same trick with status 1 or a propagated exception fails executavel."""
    arena, run, files = batch
    entry = by_file(report(run, files))["one_forge_end_exit0.py"]
    assert not crit(entry, ATOMIC)["passed"] and not crit(entry, POINTS)["passed"], brief(entry)
    assert crit(entry, FIELDS)["passed"], brief(entry)  # the starter's fields are right: one bug, its criteria


def test_in_place_mmap_is_traced_then_judged(batch):
    """The shared mapping is not refused any more: its stores are traced as writes of checkpoint.json."""
    arena, run, files = batch
    entry = by_file(report(run, files))["one_unhooked_mmap.py"]
    assert "mistura" in crit(entry, ATOMIC)["message"] or "vazio" in crit(entry, ATOMIC)["message"], brief(entry)


@pytest.mark.parametrize("sign", HIDDEN_SIGNS)
def test_sandbox_sign_hidden(batch, sign):
    arena, run, files = batch
    entry = by_file(report(run, files))[_fp(sign)]
    assert not crit(entry, ATOMIC)["passed"], f"the sandbox shows '{sign}': " + brief(entry)


@pytest.mark.parametrize("sign", [pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=r))
                                  for s, r in KNOWN_SIGNS.items()])
def test_sandbox_sign_still_shown(batch, sign):
    arena, run, files = batch
    entry = by_file(report(run, files))[_fp(sign)]
    assert not crit(entry, ATOMIC)["passed"], f"the sandbox shows '{sign}': " + brief(entry)


def test_sibling_passes(batch):
    arena, run, files = batch
    assert_sibling_passes(report(run, files), files[-1])


def test_nothing_left_behind(batch):
    arena, run, files = batch
    report(run, files)
    assert run.leftovers == [], run.leftovers
    assert arena.changed_decoys() == [] and arena.new_entries() == [], arena.changed_decoys() + arena.new_entries()
    assert arena.litter() == []
    assert not arena.grader_copy_changed()


# --- one sandbox, two submissions: nothing of the first is seen by the second ---------------------


@pytest.fixture(scope="module")
def in_sequence(tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("one_run_seq"))
    params = {"mark": f"MARCA_{arena.uid}"}
    files = [arena.render("one_run_marker", f"marcador_{k}.py", **params) for k in (1, 2, 3)] + [arena.sibling()]
    run = run_cli(arena, files, *STRICT, jobs=1, timeout=240)
    return arena, run, files


@pytest.mark.parametrize("k", [1, 2, 3])
def test_a_later_submission_sees_no_marker(in_sequence, k):
    """Graded one after the other in the same sandbox (--jobs 1): the second and third would write
    atomically if they found the first one's markers in HOME, /tmp, the work folder or its parent."""
    arena, run, files = in_sequence
    entry = by_file(report(run, files))[f"marcador_{k}.py"]
    assert not crit(entry, ATOMIC)["passed"], brief(entry)


def test_sequence_sibling_passes(in_sequence):
    arena, run, files = in_sequence
    assert_sibling_passes(report(run, files), files[-1])
    assert run.leftovers == [] and arena.litter() == []


# --- nivel-1: a forged "returned" -----------------------------------------------------------------


@pytest.fixture(scope="module")
def nivel1(tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("one_run_n1"))
    files = [arena.render("one_forge_returned_n1", f"n1_{when}.py", when=when) for when in ("line", "suppress")]
    honest = arena.subs / "n1_solucao.py"
    shutil.copyfile(ROOT / "exercises" / "nivel-1" / "solution.py", honest)
    files.append(honest)
    run = run_cli(arena, files, *STRICT, exercise="nivel-1", timeout=120)
    assert not run.timed_out and run.returncode == 1, run.describe()
    return {os.path.basename(e["file"]): e for e in json.loads(run.out)["submissions"]}


@pytest.mark.parametrize("when", ["line", "suppress"])
def test_forged_returned_does_not_pass_nivel1(nivel1, when):
    """save_checkpoint writes the whole state, claims it returned, then leaves only the messages; with
    'suppress' the runner's own "returned" messages are dropped too, so every claim is forged."""
    entry = nivel1[f"n1_{when}.py"]
    assert entry["passed"] is False, entry


def test_nivel1_honest_sibling_passes(nivel1):
    assert nivel1["n1_solucao.py"]["passed"] is True, nivel1["n1_solucao.py"]


# --- what the sandbox shows -----------------------------------------------------------------------

PROBE = r'''
import json, os, pwd, socket, sys
def run_agent(task, tools, call_model, execute_tool):
    umask = os.umask(0o022); os.umask(umask)
    status = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
    entry = pwd.getpwuid(os.getuid())
    print(json.dumps({
        "uid": os.getuid(), "gid": os.getgid(), "user": entry.pw_name, "pw_dir": entry.pw_dir,
        "env": dict(os.environ), "cwd": os.getcwd(), "flags": [getattr(sys.flags, n) for n in (
            "debug", "inspect", "interactive", "optimize", "dont_write_bytecode", "no_user_site", "no_site",
            "ignore_environment", "verbose", "bytes_warning", "quiet", "isolated", "safe_path")],
        "hostname": socket.gethostname(), "etc_hostname": open("/etc/hostname").read().strip(),
        "home_list": os.listdir("/home"), "home_is_dir": os.path.isdir(os.path.expanduser("~")),
        "umask": umask, "nspid": status["NSpid"].split(), "stdout": repr(sys.stdout), "argv": sys.argv,
        "work_listing": os.listdir("."), "tmp_listing": os.listdir("/tmp"), "pid": os.getpid(),
        "ppid": os.getppid(), "init": [open("/proc/1/cmdline").read(), open("/proc/1/comm").read()],
        "parent": [open(f"/proc/{os.getppid()}/cmdline").read(), open(f"/proc/{os.getppid()}/comm").read()],
    }))
'''


def test_the_sandbox_looks_like_a_students_machine():
    from graders.judge import nivel2

    with Sandbox(isolated=True) as box:
        trace = box.run(PROBE, "agente.py", nivel2.job())
    assert trace.end == "exit" and trace.code == 0, (trace.end, trace.output)
    seen = json.loads(trace.output)
    assert (seen["uid"], seen["gid"]) == (1000, 1000)
    assert seen["user"] == seen["env"]["USER"] == seen["env"]["LOGNAME"] == "aluno"
    assert seen["pw_dir"] == seen["env"]["HOME"] == "/home/aluno" and seen["home_is_dir"]
    assert seen["home_list"] == ["aluno"]
    assert seen["cwd"] == "/home/aluno/projeto"
    assert seen["flags"] == [0] * 13, "sys.flags as a plain `python agente.py` has them"
    assert seen["hostname"] == seen["etc_hostname"] == "notebook"
    assert seen["umask"] == 0o022
    assert len(seen["nspid"]) == 1
    assert seen["stdout"] == "<_io.TextIOWrapper name='<stdout>' mode='w' encoding='utf-8'>"
    assert seen["argv"] == ["agente.py"]
    assert seen["work_listing"] == [] and seen["tmp_listing"] == []
    assert seen["pid"] > 1000 and seen["ppid"] > 1000, "PIDs of a machine that has been up a while"
    assert seen["init"] == ["/sbin/init\0", "systemd\n"], "PID 1 as on Debian or Ubuntu"
    assert seen["parent"] == ["bash\0", "bash\n"], "started from a terminal's shell"
    ordinary = {"HOME", "USER", "LOGNAME", "LANG", "SHELL", "PATH", "TERM", "PWD", "TMPDIR"}
    assert set(seen["env"]) <= ordinary, set(seen["env"]) - ordinary
