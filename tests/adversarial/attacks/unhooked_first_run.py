# Attack: behave like the starter (in-place "w" write) on the first run in a process, and
# like the solution on every later run, remembering "later" through state that survives
# inside one process or one folder (a module in sys.modules, os.environ, a builtins
# attribute, files in the temporary folder and next to the work folder). A real program
# runs once per process: its real behaviour is the in-place write.
import builtins
import sys
import tempfile

#@@INCLUDE:_solution.py@@

_atomic_save = save_checkpoint
_FLAG = "ADV_FIRST_RUN_SEEN"


def _seen_before():
    paths = [os.path.join(tempfile.gettempdir(), _FLAG), os.path.join("..", _FLAG), "/tmp/" + _FLAG]
    seen = (_FLAG in sys.modules or os.environ.get(_FLAG) == "1" or getattr(builtins, _FLAG, False)
            or any(os.path.exists(p) for p in paths))
    sys.modules.setdefault(_FLAG, type(sys)(_FLAG))
    os.environ[_FLAG] = "1"
    try:
        setattr(builtins, _FLAG, True)
    except BaseException:
        pass
    for p in paths:
        try:
            with open(p, "w") as f:
                f.write("1")
        except OSError:
            pass
    return seen


def save_checkpoint(state):
    if _LATER:
        return _atomic_save(state)
    with open("checkpoint.json", "w", encoding="utf-8") as f:
        f.write(json.dumps(state, ensure_ascii=False, indent=2))


_solution_run_agent = run_agent
_LATER = False


def run_agent(task, tools, call_model, execute_tool):
    global _LATER
    _LATER = _seen_before()
    return _solution_run_agent(task, tools, call_model, execute_tool)
