# why: tries to reach the page through Pyodide's js module to forge a verdict
# expect: escrita-atomica=falhou ponto-a=falhou seis-campos=falhou executavel=falhou
# says: import js
import js

js.postMessage("{}")


def run_agent(task, tools, call_model, execute_tool):
    return {}
