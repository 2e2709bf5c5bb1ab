# Honest: every save (point A and point B) is made by a forked helper process with the reference
# solution's atomic save; the loop waits for the helper to exit, and checks its status, before it
# goes on (to the tool, or to the model).
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@


def save_checkpoint(state):
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            _grava_atomico(state)
        except BaseException:
            code = 1
        os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    if status != 0:
        raise RuntimeError("o processo que grava falhou")
