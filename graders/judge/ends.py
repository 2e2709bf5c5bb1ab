"""Why a run ended when it did not end by itself, as the trusted side saw it, worded for the student.
One table, so both levels' criteria and the playground say the same thing."""

from __future__ import annotations

from .errors import signal_text


def end_text(trace) -> str:
    """“tempo esgotado — …” for a run the trusted side stopped or saw killed; "" for one that exited."""
    if trace.end == "signal":
        return signal_text(trace.code)
    limits = trace.limits or {}
    if trace.end == "timeout" and (getattr(trace, "report", None) or {}).get("kind") == "ok":
        # The runner's end report came (the function returned, by the code's own account: only the wording
        # rests on it, the verdict is a failure either way), and the process still did not end.
        return ("tempo esgotado — a função voltou, mas o processo não terminou no tempo permitido: uma thread que "
                "não é daemon (ou um processo filho) continuou rodando e o manteve vivo. Espere as threads e os "
                "processos que o código inicia terminarem (join) antes de voltar")
    message = limits.get("message")
    message = message[:500] if isinstance(message, str) else ""
    return {
        "timeout": "tempo esgotado — o código não terminou no tempo permitido (provavelmente um laço infinito)",
        "flood": "saída demais: o código imprimiu muito mais do que alguém conseguiria ler e foi parado "
                 "(tire os print de dentro dos laços)",
        "runaway": "limite do corretor: " + (message or "o código chamou o modelo, as ferramentas ou o disco "
                                             "muito mais vezes do que o roteiro prevê"),
        "protocol": "o processo mandou pedidos ilegíveis ao modelo falso",
        "refused": message or "o código fez uma chamada que o corretor não consegue acompanhar",
        "broken": message or "o processo de correção falhou (não é culpa do código; tente de novo)",
    }.get(trace.end, "")


def end_sentence(trace) -> str:
    """The same, as a sentence of its own (capitalized, with a full stop), or ""."""
    text = end_text(trace)
    return text[:1].upper() + text[1:] + "." if text else ""


def outlived_text(trace, returned: str) -> str:
    """Why a run fails when a process the code started was still alive at the time limit: the run had
    not ended (it ends with its last process), and what that process would write next is unknown."""
    limit = (trace.limits or {}).get("outlived")
    if not limit:
        return ""
    seconds = f"{limit:g}".replace(".", ",") if isinstance(limit, (int, float)) else "?"
    return (f"{returned} retornou, mas um processo iniciado pelo código (um filho ou um daemon) ainda estava vivo "
            f"quando o tempo da correção ({seconds} s) acabou, e o corretor o encerrou à força: a execução não "
            "terminou no tempo permitido, e o que esse processo gravaria depois não pôde ser julgado (numa "
            "execução real ele continuaria gravando). Tudo o que ele fez até ali entrou nas quedas julgadas. "
            "Espere os processos que o código inicia terminarem (join, wait) antes de voltar.")


def refused_text(trace) -> str:
    """Why a run that ended by itself still cannot pass when the supervisor refused one of its calls: on
    a student's machine that call would have done something, and the code may have gone another way
    after the refusal (written in place where it would, or hidden a write); that run was not seen."""
    refused = [e for e in trace.events if e.kind == "refused"]
    if not refused:
        return ""
    message = (refused[0].payload or {}).get("message")
    message = message[:300].rstrip(".") if isinstance(message, str) and message else "uma chamada recusada"
    return (f"O código fez uma chamada que a correção recusa ({message}). Numa máquina de verdade essa chamada "
            "teria feito outra coisa, e o que o código faria a partir dali não foi visto nem pode ser julgado. "
            "Tire essa chamada do código.")
