# Honest: a helper started in a process group of its own (process_group=0), stopped at the end with
# os.killpg(os.getpgid(helper.pid), SIGTERM), and waited for. Expected the same in both modes: the
# signal must reach the helper's group only, never the run's.
#@@INCLUDE:_solution.py@@
import signal as _signal_rt6
import subprocess as _sp_rt6
import sys as _sys_rt6

_run_agent_rt6 = run_agent


def run_agent(task, tools, call_model, execute_tool):
    helper = _sp_rt6.Popen([_sys_rt6.executable, "-c", "import time; time.sleep(60)", "@@MARKER@@"],
                           process_group=0, stdin=_sp_rt6.DEVNULL)
    try:
        return _run_agent_rt6(task, tools, call_model, execute_tool)
    finally:
        os.killpg(os.getpgid(helper.pid), _signal_rt6.SIGTERM)
        helper.wait()
