"""The runner's own account of a failure (an untrusted report) worded for the student, in Portuguese.
It only ever explains a failure the trusted side saw; it never makes anything pass."""

from __future__ import annotations

import re

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
    if name == "RuntimeError" and "thread" in text:
        return ("o código tentou iniciar uma thread, e o Python do navegador não tem threads: grave o "
                "checkpoint na própria função (a correção na linha de comando aceita threads)")
    message = f"{name}: {text}" if text else name
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
    return "\n".join(lines)


def error_line(report: dict):
    frames = _frames(report)
    if frames and isinstance(frames[-1][0], int):
        return frames[-1][0]
    syntax = report.get("syntax")
    return syntax.get("lineno") if isinstance(syntax, dict) and isinstance(syntax.get("lineno"), int) else None


# Pyodide has no processes: these are what starting one raises there (checked under Node with Pyodide 314).
PROCESS_MESSAGE = ("o código tentou iniciar outro processo (multiprocessing, subprocess ou os.fork), e o Python do "
                   "navegador (Pyodide) não tem processos: aqui, tudo roda dentro de run_agent. Corrija pela linha de "
                   "comando (python -m graders), onde processos funcionam, ou faça o trabalho num processo só")


def _no_processes(name: str, text: str, report: dict) -> bool:
    if name == "ModuleNotFoundError" and ("'_multiprocessing'" in text or "'_posixshmem'" in text):
        return True
    if name == "OSError" and "does not support processes" in text:
        return True
    frames = _frames(report)
    line = frames[-1][2] if frames and len(frames[-1]) > 2 and isinstance(frames[-1][2], str) else ""
    return name == "OSError" and "Function not implemented" in text and "fork" in line
