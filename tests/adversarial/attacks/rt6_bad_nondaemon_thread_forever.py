# Broken: a heartbeat thread appends to agente.log every 50 ms, forever -- and is not a daemon, so the
# interpreter waits for it at exit: the process that ran run_agent never ends (a harness hangs at its
# exit). The saves are the reference solution's; the run does not end in time.
#@@INCLUDE:_solution.py@@
import threading as _threading_rt6
import time as _time_rt6

_run_agent_rt6 = run_agent


def _batimento():
    with open("agente.log", "a", encoding="utf-8") as log:
        while True:
            log.write("vivo\n")
            log.flush()
            _time_rt6.sleep(0.05)


def run_agent(task, tools, call_model, execute_tool):
    _threading_rt6.Thread(target=_batimento).start()
    return _run_agent_rt6(task, tools, call_model, execute_tool)
