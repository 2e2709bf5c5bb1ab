# Honest: before the task, two forked helpers check that they lead a session (os.setsid, then
# os.getsid(0) == os.getpid()) and a process group (os.setpgid(0, 0), then os.getpgrp() == os.getpid()),
# as daemon code does; run_agent refuses to go on if a check failed. Expected the same in both modes.
#@@INCLUDE:_solution.py@@
_run_agent_rt6 = run_agent


def _filho_confere(prepara, confere):
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            prepara()
            code = 0 if confere() else 2
        except BaseException:
            pass
        os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    return status == 0


def run_agent(task, tools, call_model, execute_tool):
    if not _filho_confere(os.setsid, lambda: os.getsid(0) == os.getpid()):
        raise RuntimeError("o ajudante não ficou numa sessão própria")
    if not _filho_confere(lambda: os.setpgid(0, 0), lambda: os.getpgrp() == os.getpid()):
        raise RuntimeError("o ajudante não ficou num grupo próprio")
    return _run_agent_rt6(task, tools, call_model, execute_tool)
