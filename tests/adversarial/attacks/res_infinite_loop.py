# Attack: an infinite loop inside run_agent that ignores every catchable signal.
import signal

for _name in ("SIGTERM", "SIGINT", "SIGHUP", "SIGALRM", "SIGXCPU", "SIGUSR1"):
    try:
        signal.signal(getattr(signal, _name), signal.SIG_IGN)
    except BaseException:
        pass


def run_agent(task, tools, call_model, execute_tool):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass
