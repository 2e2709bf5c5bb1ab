# Broken: a multiprocessing writer process takes each state from a Queue and answers on another, as
# an honest writer would, but writes checkpoint.json IN PLACE (r+b, 200-byte pieces, truncate at the
# end): a kill between pieces leaves a mix of old and new text that does not load.
#@@INCLUDE:_solution.py@@
import multiprocessing as _mp_rt6

_run_agent_rt6 = run_agent


def _escritor(entrada, saida):
    while True:
        state = entrada.get()
        if state is None:
            return
        data = json.dumps(state, ensure_ascii=False, indent=2).encode("utf-8")
        fd = os.open("checkpoint.json", os.O_RDWR | os.O_CREAT, 0o644)
        for k in range(0, len(data), 200):
            os.pwrite(fd, data[k:k + 200], k)
        os.ftruncate(fd, len(data))
        os.fsync(fd)
        os.close(fd)
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
