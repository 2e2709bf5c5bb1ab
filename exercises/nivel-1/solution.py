import json
import os


def save_checkpoint(state):
    # Os seis campos do protocolo, nem mais, nem menos, com os valores do estado.
    checkpoint = {
        "version": state["version"],
        "task": state["task"],
        "turns": state["turns"],
        "tokensUsed": state["tokensUsed"],
        "messages": state["messages"],
        "pendingToolUse": state["pendingToolUse"],
    }
    # O exercício pede só os seis campos. Mesmo assim, a gravação usa o temporário no mesmo
    # diretório e os.replace: se o processo morrer no meio, checkpoint.json continua sendo a versão
    # anterior inteira. Contra falta de energia isso não basta: faltariam os.fsync no
    # temporário e no diretório, como no Nível 2.
    with open("checkpoint.json.tmp", "w", encoding="utf-8") as f:
        f.write(json.dumps(checkpoint, ensure_ascii=False))
    os.replace("checkpoint.json.tmp", "checkpoint.json")
