# Honest: a tool runs a shell script that keeps starting background jobs, in a session of its own, and
# stops it after a while with os.killpg(p.pid, SIGKILL): the kernel signals the whole group at once, so
# no job started by the loop survives, and the run ends. (Under bubblewrap nothing is left.)
#@@INCLUDE:_solution.py@@
import signal as _signal_rt7
import subprocess as _sp_rt7
import time as _time_rt7

_run_agent_rt7 = run_agent
_LOOP = 'while :; do sleep 30 & sleep 0.003; done'


def run_agent(task, tools, call_model, execute_tool):
    p = _sp_rt7.Popen(["sh", "-c", _LOOP], stdin=_sp_rt7.DEVNULL, start_new_session=True)
    _time_rt7.sleep(0.3)
    os.killpg(p.pid, _signal_rt7.SIGKILL)
    p.wait()
    return _run_agent_rt7(task, tools, call_model, execute_tool)
