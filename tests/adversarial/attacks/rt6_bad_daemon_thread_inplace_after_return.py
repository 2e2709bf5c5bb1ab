# Broken: like the non-daemon case, but the thread is a daemon: 0.3 s after run_agent returned it
# rewrites checkpoint.json IN PLACE in 256-byte pieces. A harness that lives on after run_agent
# (a server running task after task) keeps the thread running, and a kill between two pieces leaves
# half a JSON; only a process that exits at once kills the thread before it writes.
#@@INCLUDE:_solution.py@@
import threading as _threading_rt6
import time as _time_rt6

_run_agent_rt6 = run_agent


def _compacta(state):
    _time_rt6.sleep(0.3)
    data = json.dumps(state, ensure_ascii=False).encode("utf-8")
    fd = os.open("checkpoint.json", os.O_WRONLY | os.O_TRUNC)
    for k in range(0, len(data), 256):
        os.write(fd, data[k:k + 256])
    os.close(fd)


def run_agent(task, tools, call_model, execute_tool):
    state = _run_agent_rt6(task, tools, call_model, execute_tool)
    _threading_rt6.Thread(target=_compacta, args=(json.loads(json.dumps(state)),), daemon=True).start()
    return state
