# Broken: like rt6_bad_mp_process_left_inplace, but the Process is a daemon (daemon=True), left
# running: 0.3 s after run_agent returned it rewrites checkpoint.json IN PLACE in pieces. In a harness
# that lives on after run_agent, it writes and a kill tears the file; multiprocessing terminates it
# only when the interpreter exits.
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
