# Honest: every save is sent to a module-level Pool(2) with apply (waited for), and the pool is never
# closed, joined or terminated -- the common student pattern. Its worker processes outlive run_agent
# until the interpreter's exit stops them; they write nothing after their last save.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@
import multiprocessing as _mp_rt6

_pool = []


def _grava_no_trabalhador(state):
    _grava_atomico(state)  # pickled by name: never save_checkpoint itself, which this file redefines


def save_checkpoint(state):
    if not _pool:
        _pool.append(_mp_rt6.Pool(2))
    _pool[0].apply(_grava_no_trabalhador, (state,))
