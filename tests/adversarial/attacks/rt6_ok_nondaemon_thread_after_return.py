# Honest: run_agent returns and leaves a (non-daemon) thread that, 0.3 s later, archives the final
# checkpoint with os.replace. The interpreter waits for it before exiting, as any harness process
# would; moving the checkpoint after the final answer is allowed.
#@@INCLUDE:_solution.py@@
import threading as _threading_rt6
import time as _time_rt6

_run_agent_rt6 = run_agent


def _arquiva():
    _time_rt6.sleep(0.3)
    os.replace("checkpoint.json", "checkpoint.concluido.json")


def run_agent(task, tools, call_model, execute_tool):
    state = _run_agent_rt6(task, tools, call_model, execute_tool)
    _threading_rt6.Thread(target=_arquiva).start()
    return state
