# Broken: saves right during the run, then a daemon that left the session (os.setsid, double fork)
# rewrites checkpoint.json IN PLACE, in small pieces, after run_agent returned. A kill during those
# writes leaves half a document: escrita-atomica must fail, in both modes.
#@@INCLUDE:_solution.py@@
import time as _time_session

_run_agent_daemon = run_agent


def run_agent(task, tools, call_model, execute_tool):
    state = _run_agent_daemon(task, tools, call_model, execute_tool)
    if os.fork() == 0:
        try:
            try:
                os.setsid()
            except OSError:
                pass
            if os.fork() == 0:
                _time_session.sleep(0.3)
                data = json.dumps(dict(state, turns=state["turns"] + 1), indent=2).encode("utf-8")
                fd = os.open("checkpoint.json", os.O_WRONLY)
                for offset in range(0, len(data), 64):
                    os.pwrite(fd, data[offset:offset + 64], offset)
                os.close(fd)
        finally:
            os._exit(0)
    return state
