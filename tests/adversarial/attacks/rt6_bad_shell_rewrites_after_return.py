# Broken: keeps a copy of each checkpoint in ultimo.json, and when run_agent returns it leaves a shell
# that, 0.3 s later, "restores" the checkpoint with `cat ultimo.json > checkpoint.json`: the shell's
# redirection truncates checkpoint.json in place before cat writes it. A kill in between leaves it empty.
#@@INCLUDE:_solution.py@@
import shutil as _shutil_rt6
import subprocess as _sp_rt6

_run_agent_rt6 = run_agent
_grava_rt6 = save_checkpoint


def save_checkpoint(state):
    _grava_rt6(state)
    _shutil_rt6.copyfile("checkpoint.json", "ultimo.json")


def run_agent(task, tools, call_model, execute_tool):
    state = _run_agent_rt6(task, tools, call_model, execute_tool)
    _sp_rt6.Popen(["/bin/sh", "-c", "sleep 0.3; cat ultimo.json > checkpoint.json", "@@MARKER@@"],
                  stdin=_sp_rt6.DEVNULL)
    return state
