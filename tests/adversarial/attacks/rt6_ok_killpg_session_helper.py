# Honest: a helper server for the tools started in a new session (start_new_session=True), stopped
# at the end with os.killpg(helper.pid, SIGTERM) -- the usual idiom, since the helper leads its own
# group -- and waited for. Expected the same in both isolation modes.
#@@INCLUDE:_solution.py@@
import signal as _signal_rt6
import subprocess as _sp_rt6
import sys as _sys_rt6

_run_agent_rt6 = run_agent


def run_agent(task, tools, call_model, execute_tool):
    helper = _sp_rt6.Popen([_sys_rt6.executable, "-c", "import time; time.sleep(60)", "@@MARKER@@"],
                           start_new_session=True, stdin=_sp_rt6.DEVNULL)
    try:
        return _run_agent_rt6(task, tools, call_model, execute_tool)
    finally:
        os.killpg(helper.pid, _signal_rt6.SIGTERM)
        helper.wait()
