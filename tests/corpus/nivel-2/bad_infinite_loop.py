# why: while True: pass inside run_agent
# expect: escrita-atomica=falhou ponto-a=falhou seis-campos=falhou executavel=falhou
# says: tempo
# mode: cli-only
def run_agent(task, tools, call_model, execute_tool):
    while True:
        pass
