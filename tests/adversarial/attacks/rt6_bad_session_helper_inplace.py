# Broken: a helper started in a new session (start_new_session=True) and left running when run_agent
# returns rewrites checkpoint.json IN PLACE 0.5 s later ("compacting" it, 256 bytes at a time) and
# exits. Its own session does not take it out of the run: a kill between two pieces leaves half a JSON.
#@@INCLUDE:_solution.py@@
import subprocess as _sp_rt6
import sys as _sys_rt6

_run_agent_rt6 = run_agent
_AJUDANTE = ("import json, os, time\n"
             "time.sleep(0.5)\n"
             "with open('checkpoint.json', encoding='utf-8') as f:\n"
             "    data = json.dumps(json.load(f), ensure_ascii=False).encode('utf-8')\n"
             "fd = os.open('checkpoint.json', os.O_WRONLY | os.O_TRUNC)\n"
             "for k in range(0, len(data), 256):\n"
             "    os.write(fd, data[k:k + 256])\n"
             "os.close(fd)\n")


def run_agent(task, tools, call_model, execute_tool):
    state = _run_agent_rt6(task, tools, call_model, execute_tool)
    _sp_rt6.Popen([_sys_rt6.executable, "-c", _AJUDANTE, "@@MARKER@@"], start_new_session=True,
                  stdin=_sp_rt6.DEVNULL)
    return state
