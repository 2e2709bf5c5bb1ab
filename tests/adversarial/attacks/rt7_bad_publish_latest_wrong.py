# Broken: every save goes to checkpoint.json (atomically) and to a history file named by turn and
# phase (historico/t1-pendente.json at point A, historico/t1-concluido.json at point B). At the end it
# "republishes the newest" as checkpoint.json -- picked by max() of the names, and "pendente" sorts after
# "concluido": turn 2's point A is published after the task ended, gravar_tabela pending again,
# its result gone. A kill after that makes the resume run it again.
#@@INCLUDE:_solution.py@@
import glob as _glob_rt7
import shutil as _shutil_rt7


def _historico(state):
    os.makedirs("historico", exist_ok=True)
    phase = "pendente" if state["pendingToolUse"] else "concluido"
    path = os.path.join("historico", f"t{state['turns'] + (1 if state['pendingToolUse'] else 0)}-{phase}.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(state, ensure_ascii=False, indent=2))


_grava_rt7 = save_checkpoint


def save_checkpoint(state):
    _grava_rt7(state)
    if state["turns"] or state["pendingToolUse"]:
        _historico(state)


_run_agent_rt7 = run_agent


def run_agent(task, tools, call_model, execute_tool):
    state = _run_agent_rt7(task, tools, call_model, execute_tool)
    newest = max(_glob_rt7.glob(os.path.join("historico", "t*.json")))
    _shutil_rt7.copyfile(newest, "checkpoint.json.tmp")
    os.replace("checkpoint.json.tmp", "checkpoint.json")
    return state
