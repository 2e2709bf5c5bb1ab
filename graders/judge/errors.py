"""The runner's own account of a failure (an untrusted report) worded for the student, in Portuguese.
It only ever explains a failure the trusted side saw; it never makes anything pass."""

from __future__ import annotations

import re

from ..trace.pyodide_limits import PROCESS_MESSAGE

# The same failure worded alike by CPython and Pyodide (whose errno numbers and texts differ).
_SAME = [
    (re.compile(r"\[Errno \d+\] (?:Invalid )?[Cc]ross-device link"), "[Errno EXDEV] Invalid cross-device link"),
    (re.compile(r"^import of (\S+) halted; None in sys\.modules$"), r"No module named '\1'"),
]


# Signals a student's process may die of, by number (Linux's; Pyodide has no processes to signal).
_SIGNALS = {
    2: "SIGINT: um KeyboardInterrupt que ninguém tratou, como o de um Ctrl+C",
    6: "SIGABRT: o processo abortou",
    9: "SIGKILL: o processo foi morto à força, por os.kill ou por usar memória demais",
    11: "SIGSEGV: falha de segmentação",
    15: "SIGTERM: o processo recebeu um pedido para terminar, de os.kill por exemplo",
    24: "SIGXCPU: o processo passou do tempo de CPU permitido",
    25: "SIGXFSZ: o código tentou gravar um arquivo maior que o permitido",
}


# The common runtime errors, said in Portuguese; Python's own line is kept beside (it is what a
# search or a teacher will recognise). Each pattern reads CPython's English message (3.11-3.14);
# the last text is for a message the pattern does not match.
_EXPLAINED = {
    "NameError": (r"name '([^']+)' is not defined",
                  "o nome `{0}` não existe neste ponto do código: falta defini-lo, importá-lo, ou há um erro de digitação",
                  "um nome usado não existe neste ponto do código"),
    "UnboundLocalError": (r"(?:cannot access local variable|local variable) '([^']+)'",
                          "a variável `{0}` é usada nesta função antes de receber um valor (ela recebe um valor mais "
                          "adiante na função, e por isso o Python a trata como local)",
                          "uma variável é usada nesta função antes de receber um valor"),
    "KeyError": (r"^(.+)$", "o dicionário não tem a chave {0}: confira o nome da chave, ou use `.get()` se ela puder faltar",
                 "o dicionário não tem a chave pedida"),
    "TypeError": (r"$^", "", "uma operação recebeu um valor de um tipo que ela não aceita: confira os argumentos e os "
                  "tipos na linha indicada"),
    "AttributeError": (r"'([^']+)' object has no attribute '([^']+)'",
                       "um valor do tipo `{0}` não tem o atributo `{1}`: confira o nome, ou se o valor é o que você esperava",
                       "o valor não tem o atributo pedido: confira o nome, ou se o valor é o que você esperava"),
    "IndexError": (r"$^", "", "o índice passou do fim da lista (ou da sequência): ela tem menos elementos do que o código supõe"),
    "ValueError": (r"$^", "", "a função recebeu um valor do tipo certo, mas que ela não aceita"),
    "JSONDecodeError": (r"$^", "", "o texto lido não é um JSON completo e válido (um arquivo vazio ou cortado no meio, "
                        "por exemplo)"),
    "FileNotFoundError": (r"No such file or directory: '([^']+)'",
                          "o arquivo `{0}` não existe (ainda): confira o caminho, ou se ele já foi gravado",
                          "o arquivo pedido não existe (ainda): confira o caminho, ou se ele já foi gravado"),
}


def explain(name: str, text: str) -> str:
    """The Portuguese explanation of a common runtime error ("" for the others)."""
    known = _EXPLAINED.get((name or "").rsplit(".", 1)[-1])
    if not known:
        return ""
    pattern, with_parts, plain = known
    match = re.search(pattern, text or "")
    return with_parts.format(*(_short(g, 80) for g in match.groups())) if match and with_parts else plain


def signal_text(number) -> str:
    """“o processo foi encerrado pelo sinal 2, SIGINT: …”: the number said with what it usually means
    (no parentheses: messages quote it inside theirs)."""
    meaning = _SIGNALS.get(number) if isinstance(number, int) else None
    return f"o processo foi encerrado pelo sinal {number}" + (f", {meaning}" if meaning else "")


def _frames(report: dict) -> list:
    frames = report.get("frames")
    return [f for f in frames if isinstance(f, (list, tuple)) and len(f) == 3] if isinstance(frames, list) else []


def _short(value, limit: int = 300) -> str:
    text = value if isinstance(value, str) else ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe(report: dict) -> str:
    """“KeyError: 'x' (linha 27, em run_agent: `block = …`)”, or what the runner said happened."""
    kind = report.get("kind")
    if kind == "exit":
        code = _short(report.get("exc_text"), 60)
        return f"o código chamou sys.exit({'' if code in ('', 'None') else code})"
    if kind == "missing":
        return _short(report.get("message")) or "a função pedida não existe no código"
    if kind != "exception":
        return ""
    name = _short(report.get("exc_type"), 80) or "Exception"
    text = _short(report.get("exc_text"))
    for pattern, same in _SAME:
        text = pattern.sub(same, text)
    if _no_processes(name, text, report):
        return PROCESS_MESSAGE
    message = f"{name}: {text}" if text else name
    meaning = explain(name, text)
    if meaning:
        message += f" — {meaning}"
    if "EXDEV" in text:
        message += (" — EXDEV: o temporário está em outro sistema de arquivos (como /tmp em muitas máquinas), e "
                    "os.replace só substitui arquivos dentro do mesmo; crie o temporário no diretório do checkpoint")
    frames = _frames(report)
    if frames:
        lineno, func, line = frames[-1]
        code = f": `{_short(line, 120).strip()}`" if line else ""
        message += f" (linha {lineno}, em {_short(func, 60)}{code})"
    return message


def traceback_text(report: dict) -> str:
    """The traceback restricted to the student's own lines, in Portuguese (the page's "Executar")."""
    if report.get("kind") != "exception":
        return describe(report)
    lines = ["Traceback (chamada mais recente por último):"]
    for lineno, func, line in _frames(report):
        lines.append(f"  linha {lineno}, em {_short(func, 60)}")
        if line:
            lines.append(f"    {_short(line, 200).strip()}")
    name, text = _short(report.get("exc_type"), 80), _short(report.get("exc_text"))
    lines.append(f"{name}: {text}" if text else name)
    meaning = explain(name, text)
    if meaning:
        plain = meaning.replace("`", "")  # the traceback is shown as plain text
        lines.append(f"Em português: {plain[:1].upper() + plain[1:]}.")
    return "\n".join(lines)


def error_line(report: dict):
    frames = _frames(report)
    if frames and isinstance(frames[-1][0], int):
        return frames[-1][0]
    syntax = report.get("syntax")
    return syntax.get("lineno") if isinstance(syntax, dict) and isinstance(syntax.get("lineno"), int) else None


# Pyodide has no processes: these are what starting one raises there (checked under Node with Pyodide 314).


def _no_processes(name: str, text: str, report: dict) -> bool:
    if name == "ModuleNotFoundError" and ("'_multiprocessing'" in text or "'_posixshmem'" in text):
        return True
    if name == "OSError" and "does not support processes" in text:
        return True
    frames = _frames(report)
    line = frames[-1][2] if frames and len(frames[-1]) > 2 and isinstance(frames[-1][2], str) else ""
    return name == "OSError" and "Function not implemented" in text and "fork" in line
