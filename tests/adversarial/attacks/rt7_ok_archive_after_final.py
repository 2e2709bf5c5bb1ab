# Honest: after the final reply the finished state is saved (atomically) and then archived: moved with
# os.replace into arquivo/, so the work folder has no checkpoint.json when run_agent returns (the task
# is done; a restart starts a new one). The statement allows "o último checkpoint completo ou nenhum".
#@@INCLUDE:_solution.py@@
_run_agent_rt7 = run_agent


def run_agent(task, tools, call_model, execute_tool):
    answers = []

    def model(**kw):
        answers.append(call_model(**kw))
        return answers[-1]

    state = _run_agent_rt7(task, tools, model, execute_tool)
    state["messages"].append({"role": "assistant", "content": answers[-1]["content"]})
    save_checkpoint(state)
    os.makedirs("arquivo", exist_ok=True)
    os.replace("checkpoint.json", os.path.join("arquivo", "checkpoint-final.json"))
    return state
