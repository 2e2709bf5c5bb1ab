# Included helpers for the round-7 cases: the round-6 mapping helpers, plus a checkpoint text of a
# fixed size whose JSON straddles the first page boundary (leading and trailing blanks are valid
# JSON), so that two states stored page by page into the same file tear into something that does not load.
#@@INCLUDE:_rt6.py@@
_TAMANHO = 8192


def _centrado(state):
    text = _texto(state)
    if len(text) > _TAMANHO - 64:
        raise ValueError("estado grande demais")
    lead = max(0, 4096 - len(text) // 2)
    text = b" " * lead + text
    return text + b" " * (_TAMANHO - len(text))


def _salva_centrado(state):
    with open("checkpoint.json.tmp", "wb") as f:
        f.write(_centrado(state))
        f.flush()
        os.fsync(f.fileno())
    os.replace("checkpoint.json.tmp", "checkpoint.json")
