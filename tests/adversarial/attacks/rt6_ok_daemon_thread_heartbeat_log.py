# Honest: a daemon thread appends a heartbeat line to agente.log every 20 ms, forever; the process
# ends with it mid-loop. Only the log is written by it, never the checkpoint, whose saves are the
# reference solution's.
#@@INCLUDE:_solution.py@@
import threading as _threading_rt6
import time as _time_rt6

_run_agent_rt6 = run_agent


def _batimento():
    n = 0
    with open("agente.log", "a", encoding="utf-8") as log:
        while True:
            n += 1
            log.write(f"vivo {n}\n")
            log.flush()
            _time_rt6.sleep(0.02)


def run_agent(task, tools, call_model, execute_tool):
    _threading_rt6.Thread(target=_batimento, daemon=True).start()
    return _run_agent_rt6(task, tools, call_model, execute_tool)
