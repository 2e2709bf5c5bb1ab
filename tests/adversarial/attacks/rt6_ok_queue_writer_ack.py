# Honest: a multiprocessing writer process takes each state from a Queue, saves it atomically and
# answers on a second Queue; the loop waits for the answer before it goes on. The writer is stopped
# and joined before run_agent returns.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@
import multiprocessing as _mp_rt6

_run_agent_rt6 = run_agent


def _escritor(entrada, saida):
    while True:
        state = entrada.get()
        if state is None:
            return
        _grava_atomico(state)
        saida.put(state["turns"])


_canal = {}


def save_checkpoint(state):
    _canal["in"].put(json.loads(json.dumps(state)))
    if _canal["out"].get(timeout=5) != state["turns"]:
        raise RuntimeError("resposta trocada")


def run_agent(task, tools, call_model, execute_tool):
    _canal["in"], _canal["out"] = _mp_rt6.Queue(), _mp_rt6.Queue()
    writer = _mp_rt6.Process(target=_escritor, args=(_canal["in"], _canal["out"]))
    writer.start()
    try:
        return _run_agent_rt6(task, tools, call_model, execute_tool)
    finally:
        _canal["in"].put(None)
        writer.join()
