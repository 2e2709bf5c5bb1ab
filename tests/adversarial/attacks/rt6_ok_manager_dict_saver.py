# Honest: the state is mirrored into a multiprocessing Manager dict, and each save is a short-lived
# Process that reads the dict through its proxy and saves it atomically; joined, exit code checked.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@
import multiprocessing as _mp_rt6

_run_agent_rt6 = run_agent
_gerente = {}


def _grava_do_dict(compartilhado):
    _grava_atomico(dict(compartilhado))


def save_checkpoint(state):
    shared = _gerente["dict"]
    shared.clear()
    shared.update(json.loads(json.dumps(state)))
    p = _mp_rt6.Process(target=_grava_do_dict, args=(shared,))
    p.start()
    p.join()
    if p.exitcode != 0:
        raise RuntimeError("o processo que grava falhou")


def run_agent(task, tools, call_model, execute_tool):
    with _mp_rt6.Manager() as manager:
        _gerente["dict"] = manager.dict()
        return _run_agent_rt6(task, tools, call_model, execute_tool)
