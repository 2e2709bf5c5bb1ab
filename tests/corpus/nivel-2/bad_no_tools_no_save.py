# why: returns right after the first model call: no tool, no checkpoint
# expect: escrita-atomica=falhou ponto-a=falhou seis-campos=falhou executavel=falhou
def save_checkpoint(state):
    pass


def run_agent(task, tools, call_model, execute_tool):
    state = {"version": 1, "task": task, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    call_model(tools=tools, messages=state["messages"])
    return state
