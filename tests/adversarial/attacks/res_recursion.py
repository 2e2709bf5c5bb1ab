# Attack: recursion deep enough to overflow the C stack (the interpreter dies with SIGSEGV).
import sys

sys.setrecursionlimit(10 ** 7)


def down(n):
    return down(n + 1) + 1


#@@INCLUDE:_starter.py@@

_honest_run_agent = run_agent


def run_agent(task, tools, call_model, execute_tool):
    down(0)
    return _honest_run_agent(task, tools, call_model, execute_tool)
