# Honest: the first tool's work is split among two worker processes that count the items done in a
# shared multiprocessing.Value (with its lock) and append one line per item to their own log file;
# joined before the tool's result is used. Saves are the reference solution's.
#@@INCLUDE:_solution.py@@
import multiprocessing as _mp_rt6

_run_agent_rt6 = run_agent
ITENS = 6000


def _trabalha(k, feitos):
    with open(f"trabalhador-{k}.log", "w", encoding="utf-8") as log:
        for i in range(k, ITENS, 2):
            with feitos.get_lock():
                feitos.value += 1
            log.write(f"item {i}\n")
            log.flush()


def run_agent(task, tools, call_model, execute_tool):
    def ferramenta(name, input):
        feitos = _mp_rt6.Value("i", 0)
        workers = [_mp_rt6.Process(target=_trabalha, args=(k, feitos)) for k in range(2)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        if feitos.value != ITENS:
            raise RuntimeError(f"só {feitos.value} itens")
        return execute_tool(name, input)

    return _run_agent_rt6(task, tools, call_model, ferramenta)
