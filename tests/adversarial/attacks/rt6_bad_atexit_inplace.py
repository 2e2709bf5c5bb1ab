# Broken: registers an atexit handler that, when the interpreter ends (after run_agent returned),
# rewrites checkpoint.json IN PLACE, compact, in 256-byte pieces: a harness process runs it at its
# exit, and a kill between two pieces leaves half a JSON.
#@@INCLUDE:_solution.py@@
import atexit as _atexit_rt6

_run_agent_rt6 = run_agent


def run_agent(task, tools, call_model, execute_tool):
    state = _run_agent_rt6(task, tools, call_model, execute_tool)
    data = json.dumps(state, ensure_ascii=False).encode("utf-8")

    def compacta():
        fd = os.open("checkpoint.json", os.O_WRONLY | os.O_TRUNC)
        for k in range(0, len(data), 256):
            os.write(fd, data[k:k + 256])
        os.close(fd)

    _atexit_rt6.register(compacta)
    return state
