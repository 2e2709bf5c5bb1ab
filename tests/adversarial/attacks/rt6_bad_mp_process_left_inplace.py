# Broken: run_agent starts a multiprocessing.Process (not a daemon) and returns without joining it;
# 0.2 s later the process rewrites checkpoint.json IN PLACE in pieces. multiprocessing joins it at
# the interpreter's exit, and it is a process of the run: traced until it ends, and its torn write fails.
#@@INCLUDE:_solution.py@@
import multiprocessing as _mp_rt6
import time as _time_rt6

_run_agent_rt6 = run_agent


def _reescreve(text):
    _time_rt6.sleep(0.2)
    data = text.encode("utf-8")
    with open("checkpoint.json", "r+b", buffering=0) as f:
        for k in range(0, len(data), 200):
            f.write(data[k:k + 200])
        f.truncate()


def run_agent(task, tools, call_model, execute_tool):
    state = _run_agent_rt6(task, tools, call_model, execute_tool)
    _mp_rt6.Process(target=_reescreve, args=(json.dumps(state, ensure_ascii=False),)).start()
    return state
