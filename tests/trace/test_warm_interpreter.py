"""The warm interpreter (graders/trace/kernel/zygote.py, graders/trace/inside.py), in both modes: each
run's process is forked from it and seals itself before the student's code; a run can neither reach
it nor outlive into the next run through it, and losing it costs no run. Checked from outside: the
processes under the server, their /proc entries, and the next run's verdict. Under bubblewrap it
shares the runs' PID namespace, so the end of each run must spare it and nothing else."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import signal
import textwrap
import time
from pathlib import Path

import pytest

from graders.sandbox.sandbox import Sandbox

ROOT = Path(__file__).resolve().parents[2]
JOB = {"function": "save_checkpoint", "states": [{"n": 1}]}


@pytest.fixture(params=["reduzido", "estrito"])
def box(request):
    sandbox = Sandbox(isolated=request.param == "estrito")
    yield sandbox
    sandbox.close()


def run(box, body: str, timeout: float = 10.0):
    return box.run("import os, sys, json\n" + textwrap.dedent(body), "aluno.py", JOB, timeout)


def ok(trace):
    assert trace.end == "exit" and trace.code == 0, (trace.end, trace.code, trace.output, trace.report)


def _stat(pid: int) -> list[bytes]:
    with open(f"/proc/{pid}/stat", "rb") as f:
        return f.read().rsplit(b")", 1)[1].split()


def children(pid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if int(_stat(int(name))[1]) == pid:
                    out.append(int(name))
            except (OSError, ValueError, IndexError):
                continue
    return out


def is_warm_interpreter(pid: int) -> bool:
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return b"serve_forks(" in f.read()


def server(box) -> int:
    """The server's pid as we see it: the sandbox's process in reduced mode; under bubblewrap the
    child of the namespace's init, bwrap's child."""
    if not box.isolated:
        return box.process.pid
    (init,) = children(box.process.pid)
    (found,) = children(init)
    return found


def inner(pid: int) -> int:
    """The pid as the run sees it (its PID namespace's number: the same in reduced mode)."""
    with open(f"/proc/{pid}/status") as f:
        return int(next(line for line in f if line.startswith("NSpid:")).split()[-1])


def warm_interpreter(box) -> int:
    """Between runs, the server's only child: the warm interpreter, waiting for the next run."""
    left = children(server(box))
    assert len(left) == 1 and is_warm_interpreter(left[0]), left
    return left[0]


def test_each_run_is_forked_from_it_sealed_and_ours(box):
    ok(run(box, "def save_checkpoint(state): pass"))
    first = warm_interpreter(box)
    trace = run(box, """
        def save_checkpoint(state):
            status = dict(line.split(":", 1) for line in open("/proc/self/status"))
            print(os.getppid(), os.getpgid(0) == os.getpid(), os.getsid(0) == os.getpid(),
                  status["Seccomp"].strip(), status["NoNewPrivs"].strip(), status["CapEff"].strip(),
                  sorted(os.listdir("/proc/self/fd")), os.umask(0o022))
    """)
    ok(trace)
    ppid, group, session, seccomp, no_new_privs, caps, *rest = trace.output.split(" ", 6)
    # The run's process is the server's child (the warm interpreter exited after forking it), the
    # leader of its own session, filtered (2: SECCOMP_MODE_FILTER), with no privileges, no capability
    # and only /dev/null, its output and the channel open (the one listed beyond is listdir's own).
    assert int(ppid) == inner(server(box)), trace.output
    assert (group, session, seccomp, no_new_privs, caps) == ("True", "True", "2", "1", "0000000000000000")
    assert rest[0].strip() == "['0', '1', '2', '3', '4'] 18", trace.output
    # The interpreter that forked it is gone, and the next one waits.
    second = warm_interpreter(box)
    assert second != first and not os.path.exists(f"/proc/{first}")


def test_a_run_cannot_reach_it(box):
    """Everything a process of the same user could try on another: signals, /proc (memory, its
    descriptors, its environment), a pidfd, limits and priority. The interpreter that will fork the
    next run must come out of it alive, running and untouched, and fork that run."""
    ok(run(box, "def save_checkpoint(state): pass"))
    trace = run(box, """
        import resource, signal
        def save_checkpoint(state):
            mine = os.getpgid(0)
            out = []
            for name in os.listdir("/proc"):
                if not name.isdigit() or int(name) == os.getpid():
                    continue
                pid = int(name)
                try:
                    # The real uid (/proc/<pid> itself belongs to root when the process is not dumpable).
                    uid = next(int(l.split()[1]) for l in open(f"/proc/{pid}/status") if l.startswith("Uid:"))
                except (OSError, StopIteration):
                    continue
                try:
                    if uid != os.getuid() or os.getpgid(pid) == mine:
                        continue
                except OSError:
                    pass  # outside the run, reduced mode's getpgid says ESRCH
                attempts = [
                    ("stop", lambda: os.kill(pid, signal.SIGSTOP)),
                    ("kill", lambda: os.kill(pid, signal.SIGKILL)),
                    ("pidfd", lambda: os.pidfd_open(pid)),
                    ("mem", lambda: open(f"/proc/{pid}/mem", "r+b")),
                    ("mem-read", lambda: open(f"/proc/{pid}/mem", "rb")),
                    ("fd3", lambda: open(f"/proc/{pid}/fd/3", "rb")),
                    ("environ", lambda: open(f"/proc/{pid}/environ", "rb").read()),
                    ("nproc", lambda: resource.prlimit(pid, resource.RLIMIT_NPROC, (0, 0))),
                    ("nice", lambda: os.setpriority(os.PRIO_PROCESS, pid, 19)),
                    ("affinity", lambda: os.sched_setaffinity(pid, {0})),
                ]
                for what, attempt in attempts:
                    try:
                        attempt()
                        out.append(f"{pid}:{what}:ok")
                    except OSError as exc:
                        out.append(f"{pid}:{what}:{type(exc).__name__}")
            print(out)
    """)
    ok(trace)
    warm = warm_interpreter(box)
    assert f"{inner(warm)}:stop:" in trace.output, trace.output  # it was found and tried
    assert ":ok'" not in trace.output, trace.output
    fields = _stat(warm)
    assert fields[0] == b"S", fields[0]  # asleep on its socket, not stopped
    assert int(fields[16]) == 0, fields[16]  # its nice value
    with open(f"/proc/{warm}/limits") as f:
        nproc = next(line for line in f if line.startswith("Max processes"))
    assert nproc.split()[2] != "0", nproc
    started = time.monotonic()
    trace = run(box, "def save_checkpoint(state): open('x', 'w').write('ok')")
    ok(trace)
    assert time.monotonic() - started < 5  # not a stuck fork waited for, then a cold start
    assert not os.path.exists(f"/proc/{warm}")  # it forked this run and gave way to the next one
    warm_interpreter(box)


def test_losing_it_costs_no_run(box):
    ok(run(box, "def save_checkpoint(state): pass"))
    os.kill(warm_interpreter(box), signal.SIGKILL)
    time.sleep(0.1)
    trace = run(box, "def save_checkpoint(state): open('x', 'w').write('ok')")
    ok(trace)  # started cold
    assert trace.final[os.path.join(trace.root("work").path, "x")] == b"ok"
    ok(run(box, "def save_checkpoint(state): pass"))
    warm_interpreter(box)  # and a new one made for the runs after


def test_a_stuck_one_costs_no_verdict(box):
    """Stopped from outside (it cannot be from a run), it does not answer: the run starts cold after
    zygote.ANSWER_TIMEOUT, with its whole time limit, and the interpreter is replaced."""
    from graders.trace.kernel.zygote import ANSWER_TIMEOUT

    ok(run(box, "def save_checkpoint(state): pass"))
    stuck = warm_interpreter(box)
    os.kill(stuck, signal.SIGSTOP)
    try:
        started = time.monotonic()
        trace = run(box, "import time\ndef save_checkpoint(state):\n    time.sleep(0.5)\n    open('x', 'w').write('ok')",
                    timeout=1.5)
        ok(trace)
        assert trace.final[os.path.join(trace.root("work").path, "x")] == b"ok"
        assert time.monotonic() - started < ANSWER_TIMEOUT + 5
        assert not os.path.exists(f"/proc/{stuck}")  # killed and reaped
    finally:
        try:
            os.kill(stuck, signal.SIGKILL)
        except OSError:
            pass
    ok(run(box, "def save_checkpoint(state): pass"))
    assert warm_interpreter(box) != stuck


def test_the_end_of_a_run_spares_it_and_nothing_else(box):
    """What a run leaves behind, of every kind: a daemon in a session of its own, a stopped child, a
    double-forked grandchild, and a process that forks without pause until it is killed (under
    bubblewrap the end of a run sweeps /proc in place of kill(-1), so a fork made as it lists must be
    caught by the next sweep). After the run only the warm interpreter is under the server, and the
    next run, forked from it, sees none of them."""
    ok(run(box, "def save_checkpoint(state): pass"))
    trace = run(box, """
        import signal, time
        def save_checkpoint(state):
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    time.sleep(60)
                os._exit(0)
            if os.fork() == 0:
                os.kill(os.getpid(), signal.SIGSTOP)
                os._exit(0)
            if os.fork() == 0:
                os.setsid()
                while True:
                    try:
                        if os.fork() == 0:
                            os._exit(0)
                        os.waitpid(-1, 0)
                    except OSError:
                        pass
            open("x", "w").write("ok")
    """, timeout=2)
    assert trace.end == "exit" and trace.limits.get("outlived"), (trace.end, trace.limits, trace.output)
    warm = warm_interpreter(box)
    assert _stat(warm)[0] == b"S"
    trace = run(box, """
        def save_checkpoint(state):
            mine = os.getpid()
            print(os.getppid(), sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != mine))
    """)
    ok(trace)
    ppid, seen = trace.output.split(" ", 1)
    assert int(ppid) == inner(server(box)), trace.output  # forked warm, not started cold
    if box.isolated:  # its PID namespace: init, the server, the warm interpreter that forked the next
        assert eval(seen) == sorted([1, inner(server(box)), inner(warm_interpreter(box))]), trace.output
    assert not os.path.exists(f"/proc/{warm}")


# In a process of its own (reduced mode, as a library): a warm interpreter that answers after the
# supervisor gave up on it (a loaded machine) has forked a run's process all the same, on the pipes it
# was given. The run, started cold, must get pipes of its own: sharing its channel with that stray,
# a correct program ended "protocol" (found by the red team).
LATE = r"""
import json, os, sys, tempfile, time
from graders.trace.kernel.lookthread import LookThread
from graders.trace.kernel.run import confine_settings, prepare_supervisor, run_traced
from graders.trace.kernel.zygote import Zygote
prepare_supervisor()
base = tempfile.mkdtemp()
work, tmp = os.path.join(base, "projeto"), os.path.join(base, "tmp")
os.mkdir(work), os.mkdir(tmp)
env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


class Late(Zygote):
    def fork(self, out_w, chan):
        super().fork(out_w, chan)  # a run's process now exists on these pipes...
        self.close()
        raise OSError("late")  # ...and the answer is taken for silence, as after ANSWER_TIMEOUT


looker = LookThread(None)
results = []
for attempt in range(3):
    zygote = Late(looker.fork, sys.executable, env, confine_settings(work, {}, None), True)
    trace = run_traced("import time\ndef save_checkpoint(state):\n    time.sleep(0.3)\n    print('salvo', state)\n",
                       "solucao.py", {"function": "save_checkpoint", "states": [{"n": 1}]}, work=work, tmp=tmp,
                       reduced=True, env=env, python=sys.executable, looker=looker, zygote=zygote)
    results.append([trace.end, trace.code, trace.output, zygote.alive])
    zygote.close()
# The stray run's processes (we are their subreaper) end by themselves: their channel is closed.
time.sleep(1)
left = []
for task in os.listdir("/proc/self/task"):
    with open(f"/proc/self/task/{task}/children") as f:
        left += [int(p) for p in f.read().split()]
for pid in left:
    with open(f"/proc/{pid}/stat") as f:
        if f.read().rsplit(")", 1)[1].split()[0] == "Z":
            os.waitpid(pid, 0)
            continue
    os.kill(pid, 9)  # never left behind by a test, whatever the verdict below
    results.append(["left", pid])
print(json.dumps(results))
"""


def test_a_late_answer_costs_no_verdict():
    done = subprocess.run([sys.executable, "-c", LATE], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout)
    assert not [r for r in results if r[0] == "left"], results  # no stray run's process stuck for ever
    for end, code, output, alive in results:
        assert (end, code, alive) == ("exit", 0, False), (end, code, output)
        assert output == "salvo {'n': 1}\n", output
