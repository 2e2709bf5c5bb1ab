# Honest: under the graded program's model (run_agent, then the interpreter's normal exit): like
# rt6_bad_mp_process_left_inplace, but the Process is a daemon (daemon=True) that would rewrite
# checkpoint.json IN PLACE 0.3 s after run_agent returned; multiprocessing terminates daemonic
# Processes when the interpreter exits, so that write never happens.
#@@INCLUDE:_solution.py@@
import multiprocessing as _mp_rt6
import time as _time_rt6

_run_agent_rt6 = run_agent


def _reescreve(text):
    _time_rt6.sleep(0.3)
    data = text.encode("utf-8")
    with open("checkpoint.json", "r+b", buffering=0) as f:
        for k in range(0, len(data), 200):
            f.write(data[k:k + 200])
        f.truncate()


def run_agent(task, tools, call_model, execute_tool):
    state = _run_agent_rt6(task, tools, call_model, execute_tool)
    _mp_rt6.Process(target=_reescreve, args=(json.dumps(state, ensure_ascii=False),), daemon=True).start()
    return state
