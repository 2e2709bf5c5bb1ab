# Honest: under the graded program's model (run_agent, then the interpreter's normal exit, as a script
# that calls run_agent and ends): the thread is a daemon that would rewrite checkpoint.json IN PLACE
# 0.3 s after run_agent returned, but Python stops daemon threads at exit, so that write never
# happens, in this program or under real kills. (A harness that lived on after run_agent would keep
# it running: PROFESSORES.md and the statement say which program is graded.)
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
