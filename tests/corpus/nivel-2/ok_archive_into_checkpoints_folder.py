# why: saves checkpoint.json atomically at both points, then, once the final answer is in, moves it into checkpoints/checkpoint.json (archiving is allowed): that name first appears after the task ended, beside the file the task saved to, so no tool ran while it existed
# expect: escrita-atomica=ok ponto-a=ok seis-campos=ok executavel=ok
from pathlib import Path
import json
import os

ATUAL = Path("checkpoint.json")
ARQUIVO = Path("checkpoints") / "checkpoint.json"


def gravar(cena):
    rascunho = ATUAL.with_name(ATUAL.name + ".novo")
    with rascunho.open("w", encoding="utf-8") as saida:
        json.dump(cena, saida, ensure_ascii=False)
        saida.flush()
        os.fsync(saida.fileno())
    rascunho.replace(ATUAL)


def arquivar():
    """A tarefa acabou: o checkpoint vai para a pasta de arquivo, e um harness reiniciado não chama o
    modelo de novo por causa dele."""
    ARQUIVO.parent.mkdir(exist_ok=True)
    ATUAL.replace(ARQUIVO)


def run_agent(task, tools, call_model, execute_tool):
    cena = dict(version=1, task=task, turns=0, tokensUsed=0, pendingToolUse=None,
                messages=[dict(role="user", content=task)])
    resposta = call_model(tools=tools, messages=cena["messages"])
    cena["tokensUsed"] += resposta["usage"]["output_tokens"]
    while resposta["stop_reason"] == "tool_use":
        pedido = [b for b in resposta["content"] if b["type"] == "tool_use"][0]
        cena["messages"].append(dict(role="assistant", content=resposta["content"]))
        cena["pendingToolUse"] = dict(id=pedido["id"], name=pedido["name"], input=pedido["input"])
        gravar(cena)  # ponto A
        saida = execute_tool(pedido["name"], pedido["input"])
        cena["messages"].append(dict(role="user", content=[
            dict(type="tool_result", tool_use_id=pedido["id"], content=saida)]))
        cena["turns"] += 1
        cena["pendingToolUse"] = None
        gravar(cena)  # ponto B
        resposta = call_model(tools=tools, messages=cena["messages"])
        cena["tokensUsed"] += resposta["usage"]["output_tokens"]
    arquivar()
    return cena
