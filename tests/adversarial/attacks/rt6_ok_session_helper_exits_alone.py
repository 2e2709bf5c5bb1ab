# Honest: a helper started in a new session (start_new_session=True) is left running when run_agent
# returns; 0.5 s later it appends a line to agente.log (never the checkpoint) and exits by itself,
# well within the time limit. The run lasts until it ends; nothing it does is judged against the code.
#@@INCLUDE:_solution.py@@
import subprocess as _sp_rt6
import sys as _sys_rt6

_run_agent_rt6 = run_agent
_AJUDANTE = ("import time; time.sleep(0.5)\n"
             "with open('agente.log', 'a', encoding='utf-8') as f:\n"
             "    f.write('ajudante terminou\\n')\n")


def run_agent(task, tools, call_model, execute_tool):
    state = _run_agent_rt6(task, tools, call_model, execute_tool)
    _sp_rt6.Popen([_sys_rt6.executable, "-c", _AJUDANTE, "@@MARKER@@"], start_new_session=True,
                  stdin=_sp_rt6.DEVNULL)
    return state
