# Honest: the reference solution, plus a tool step that manages helper processes by their groups, as a
# student's tool that starts and stops helpers would: signalled with os.killpg(p.pid) after
# start_new_session, with os.killpg(os.getpgid(q.pid)) after process_group=0, a child that joins
# another child's group, kill(0) inside a group of its own, a double-forked daemon stopped by its
# group, and the errors Linux gives (a group leader calling setsid, a group that does not exist, a
# process that is not a child). Each check that sees
# something Linux would not do raises, so "roda até o fim" fails on any difference between the modes.
#@@INCLUDE:_solution.py@@
import signal as _sig_groups
import subprocess as _sp_groups
import sys as _sys_groups
import time as _time_groups

_run_agent_groups = run_agent
_SLEEPER = "import time; time.sleep(30)  # @@MARKER@@"


def _expect(label, got, wanted):
    if got != wanted:
        raise AssertionError(f"{label}: {got!r} != {wanted!r}")


def _error(label, call, wanted):
    try:
        call()
    except OSError as exc:
        _expect(label, type(exc).__name__, wanted)
        return
    raise AssertionError(f"{label}: no error, wanted {wanted}")


def _groups_check():
    me = os.getpid()
    _expect("getpgrp", os.getpgrp(), os.getpgid(0))
    _expect("own session", os.getsid(0), os.getsid(me))
    _error("setsid of a leader", os.setsid, "PermissionError") if os.getpgrp() == me else None
    p = _sp_groups.Popen([_sys_groups.executable, "-c", _SLEEPER], start_new_session=True)
    q = _sp_groups.Popen([_sys_groups.executable, "-c", _SLEEPER], process_group=0)
    _time_groups.sleep(0.3)
    _expect("session leader's group", os.getpgid(p.pid), p.pid)
    _expect("session leader's session", os.getsid(p.pid), p.pid)
    _expect("new group", os.getpgid(q.pid), q.pid)
    _expect("new group keeps the session", os.getsid(q.pid), os.getsid(0))
    _expect("our group unchanged", os.getpgrp(), os.getpgid(0))
    os.killpg(p.pid, _sig_groups.SIGTERM)
    _expect("p ended by its group's signal", p.wait(10), -_sig_groups.SIGTERM)
    os.killpg(os.getpgid(q.pid), _sig_groups.SIGTERM)
    _expect("q ended by its group's signal", q.wait(10), -_sig_groups.SIGTERM)
    _error("a group that does not exist", lambda: os.killpg(p.pid, 0), "ProcessLookupError")
    # A child joins another child's group; a signal to that group reaches both, and only them.
    r = _sp_groups.Popen([_sys_groups.executable, "-c", _SLEEPER], process_group=0)
    _time_groups.sleep(0.2)
    s = _sp_groups.Popen([_sys_groups.executable, "-c", _SLEEPER], process_group=r.pid)
    _time_groups.sleep(0.2)
    _expect("joined group", os.getpgid(s.pid), r.pid)
    os.killpg(r.pid, _sig_groups.SIGKILL)
    _expect("r", r.wait(10), -_sig_groups.SIGKILL)
    _expect("s", s.wait(10), -_sig_groups.SIGKILL)
    # kill(0) from a child in a group of its own reaches that group only (we are alive after it).
    child = os.fork()
    if child == 0:
        code = 1
        try:
            os.setpgid(0, 0)
            _sig_groups.signal(_sig_groups.SIGUSR1, _sig_groups.SIG_IGN)
            os.kill(0, _sig_groups.SIGUSR1)
            code = 0 if os.getpgrp() == os.getpid() else 2
        finally:
            os._exit(code)
    _pid, status = os.waitpid(child, 0)
    _expect("child's kill(0)", os.waitstatus_to_exitcode(status), 0)
    # A daemon started by a double fork (the middle process calls setsid and exits at once), later
    # stopped by its group: the group is the middle process's session, whose leader is gone.
    r_fd, w_fd = os.pipe()
    middle = os.fork()
    if middle == 0:
        try:
            os.setsid()
            daemon = os.fork()
            if daemon == 0:
                os.close(r_fd)
                os.execv(_sys_groups.executable, [_sys_groups.executable, "-c", _SLEEPER])
            os.write(w_fd, str(daemon).encode())
        finally:
            os._exit(0)
    os.close(w_fd)
    daemon = int(os.read(r_fd, 64).decode())
    os.close(r_fd)
    os.waitpid(middle, 0)
    _time_groups.sleep(0.2)
    _expect("daemon's group is the gone middle process's", os.getpgid(daemon), middle)
    os.killpg(os.getpgid(daemon), _sig_groups.SIGTERM)
    # setpgid on a process that is not our child, or into a group of nobody.
    _error("setpgid of a stranger", lambda: os.setpgid(1, 0), "ProcessLookupError")
    t = _sp_groups.Popen([_sys_groups.executable, "-c", _SLEEPER])
    try:
        _error("setpgid into no group", lambda: os.setpgid(t.pid, 999999), "PermissionError")
    finally:
        t.kill()
        t.wait(10)


def run_agent(task, tools, call_model, execute_tool):
    _groups_check()
    return _run_agent_groups(task, tools, call_model, execute_tool)
