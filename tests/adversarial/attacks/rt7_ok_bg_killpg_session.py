# Honest: the same background tool server (a shell in a new session starts it with `&` and exits),
# stopped with os.killpg(shell.pid, SIGTERM): the session's group outlives the shell that led it,
# because the server is still in it. Under bubblewrap the server gets the signal and the run ends.
#@@INCLUDE:_solution.py@@
import signal as _signal_rt7
import subprocess as _sp_rt7
import sys as _sys_rt7
import time as _time_rt7

_run_agent_rt7 = run_agent
_SERVER = "import os, sys, time\nos.write(1, b'%d\\n' % os.getpid())\ntime.sleep(60)\n"


def run_agent(task, tools, call_model, execute_tool):
    shell = _sp_rt7.Popen(["sh", "-c", '"$0" -c "$1" "$2" &', _sys_rt7.executable, _SERVER, "@@MARKER@@"],
                          stdout=_sp_rt7.PIPE, stdin=_sp_rt7.DEVNULL, start_new_session=True)
    shell.stdout.readline()
    shell.wait()
    _time_rt7.sleep(0.2)
    try:
        return _run_agent_rt7(task, tools, call_model, execute_tool)
    finally:
        os.killpg(shell.pid, _signal_rt7.SIGTERM)
        shell.stdout.read()
        shell.stdout.close()
