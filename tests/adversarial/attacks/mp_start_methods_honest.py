# Honest: the reference solution, plus multiprocessing with each start method as a student uses it:
# Pool.map and ProcessPoolExecutor over a function of this file, a Process whose target is one,
# an instance of a class of this file through a Queue, a Manager. spawn and forkserver start fresh
# interpreters (Python 3.14's default on Linux is forkserver).
#@@INCLUDE:_solution.py@@
import concurrent.futures as _cf_mp
import multiprocessing as _mp_mp


class Pedaco:
    def __init__(self, n):
        self.n = n


def quadrado(x):
    return x * x


def dobra(pedaco, fila):
    fila.put(Pedaco(pedaco.n * 2))


_run_agent_mp = run_agent


def run_agent(task, tools, call_model, execute_tool):
    for method in ("spawn", "forkserver", "fork"):
        ctx = _mp_mp.get_context(method)
        with ctx.Pool(2) as pool:
            assert sum(pool.map(quadrado, range(5))) == 30
        with _cf_mp.ProcessPoolExecutor(2, mp_context=ctx) as ex:
            assert sum(ex.map(quadrado, range(5))) == 30
        fila = ctx.Queue()
        proc = ctx.Process(target=dobra, args=(Pedaco(21), fila))
        proc.start()
        assert fila.get(timeout=20).n == 42
        proc.join()
        with ctx.Manager() as manager:
            shared = manager.dict()
            shared["x"] = 1
            assert shared["x"] == 1
    return _run_agent_mp(task, tools, call_model, execute_tool)
