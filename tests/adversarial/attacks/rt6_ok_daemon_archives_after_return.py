# Honest: a double-forked daemon in its own session (os.setsid) waits for run_agent's word that the
# task is done and, after run_agent has returned, archives checkpoint.json into historico/ with
# os.replace. After the final answer, moving the checkpoint away is allowed: every state is complete
# or absent with the task finished.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@
import time as _time_rt6

_run_agent_rt6 = run_agent


def run_agent(task, tools, call_model, execute_tool):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(w)
            if os.fork() != 0:
                os._exit(0)
            os.setsid()
            word = os.read(r, 1)
            _time_rt6.sleep(0.3)  # well after run_agent returned
            if word == b"1" and os.path.exists("checkpoint.json"):
                os.makedirs("historico", exist_ok=True)
                os.replace("checkpoint.json", "historico/checkpoint-final.json")
        except BaseException:
            code = 1
        os._exit(code)
    os.close(r)
    os.waitpid(pid, 0)
    try:
        state = _run_agent_rt6(task, tools, call_model, execute_tool)
        os.write(w, b"1")
    finally:
        os.close(w)
    return state
