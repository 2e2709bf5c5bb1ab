# Honest: the reference solution, plus a tool step that runs a short subprocess in a new session
# (subprocess's start_new_session=True, process_group=0 and os.setsid in a forked child), as a
# student's tool that starts a helper program would. Each helper exits normally.
#@@INCLUDE:_solution.py@@
import subprocess as _sp_session
import sys as _sys_session

_run_agent_session = run_agent


def run_agent(task, tools, call_model, execute_tool):
    for extra in ({"start_new_session": True}, {"process_group": 0}):
        done = _sp_session.run([_sys_session.executable, "-c", "print('@@MARKER@@')"], capture_output=True,
                               check=True, **extra)
        assert b"@@MARKER@@" in done.stdout
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            os.setpgid(0, 0)
        finally:
            os._exit(0)
    _pid, status = os.waitpid(pid, 0)
    assert status == 0
    return _run_agent_session(task, tools, call_model, execute_tool)
