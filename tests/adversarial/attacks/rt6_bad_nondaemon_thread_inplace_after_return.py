# Broken: run_agent returns and leaves a (non-daemon) thread that, 0.2 s later, "tidies" the final
# checkpoint by rewriting checkpoint.json IN PLACE, compact, in 256-byte pieces. The interpreter
# waits for the thread, so a harness process does too: a kill between two pieces leaves half a JSON.
#@@INCLUDE:_solution.py@@
import threading as _threading_rt6
import time as _time_rt6

_run_agent_rt6 = run_agent


def _compacta(state):
    _time_rt6.sleep(0.2)
    data = json.dumps(state, ensure_ascii=False).encode("utf-8")
    fd = os.open("checkpoint.json", os.O_WRONLY | os.O_TRUNC)
    for k in range(0, len(data), 256):
        os.write(fd, data[k:k + 256])
    os.close(fd)


def run_agent(task, tools, call_model, execute_tool):
    state = _run_agent_rt6(task, tools, call_model, execute_tool)
    _threading_rt6.Thread(target=_compacta, args=(json.loads(json.dumps(state)),)).start()
    return state
