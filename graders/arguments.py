"""argparse in Portuguese: the parser both command lines use (`python -m graders` and its
`autograder` command), with argparse's messages translated and exit code 2 for usage errors."""

from __future__ import annotations

import argparse
import math
import re
import sys

EXIT_USAGE = 2
ALL_EXERCISES = "todos"  # the --exercicio value for the whole lesson
# Bounds that keep every value meaningful: a run longer than an hour is a typo, not a limit.
TIMEOUT_MAX = 3600.0
GRADE_MAX = 1000.0


def number(text: str) -> float:
    """A number as a pt-BR instructor may write it ("2,5" is 2.5)."""
    try:
        return float(text.strip().replace(",", "."))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} não é um número") from None


def seconds(text: str) -> float:
    """A time limit: finite, above 0, at most TIMEOUT_MAX."""
    value = number(text)
    if not math.isfinite(value) or value <= 0 or value > TIMEOUT_MAX:
        raise argparse.ArgumentTypeError(
            f"{text!r} não serve: use um número de segundos maior que 0 e no máximo {TIMEOUT_MAX:.0f}")
    return value


def grade_max(text: str) -> float:
    """The grade of whoever meets every criterion: finite, above 0, at most GRADE_MAX."""
    value = number(text)
    if not math.isfinite(value) or value <= 0 or value > GRADE_MAX:
        raise argparse.ArgumentTypeError(f"{text!r} não serve: use um número maior que 0 e no máximo {GRADE_MAX:.0f}")
    return value

# argparse's own English messages (Python 3.11–3.13), as patterns, and their Portuguese.
_TRANSLATIONS = [
    (r"the following arguments are required: (.*)", r"faltam os argumentos: \1"),
    (r"argument (\S+): expected one argument", r"a opção \1 precisa de um valor"),
    (r"argument (\S+): expected at most one argument", r"a opção \1 aceita no máximo um valor"),
    (r"argument (\S+): expected at least one argument", r"a opção \1 precisa de pelo menos um valor"),
    (r"argument (\S+): expected (\d+) arguments?", r"a opção \1 precisa de \2 valores"),
    (r"argument (\S+): invalid choice: (.*) \(choose from (.*)\)", r"valor inválido para \1: \2 (escolha entre \3)"),
    (r"argument (\S+): invalid (\S+) value: (.*)", r"valor inválido para \1: \3"),
    (r"argument (\S+): not allowed with argument (\S+)", r"a opção \1 não pode ser usada junto com \2"),
    (r"argument (\S+): ignored explicit argument (.*)", r"a opção \1 não aceita o valor \2"),
    (r"argument (\S+): (.*)", r"valor inválido para \1: \2"),
    (r"unrecognized arguments: (.*)", r"opções desconhecidas: \1"),
    (r"ambiguous option: (\S+) could match (.*)", r"opção ambígua: \1 pode ser \2"),
    (r"one of the arguments (.*) is required", r"é preciso uma das opções \1"),
]


def translate(message: str) -> str:
    """argparse's English error message in Portuguese (unknown ones pass through unchanged)."""
    for pattern, replacement in _TRANSLATIONS:
        match = re.fullmatch(pattern, message, flags=re.S)
        if match:
            return match.expand(replacement)
    return message


class _Formatter(argparse.HelpFormatter):
    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, actions, groups, prefix="uso: " if prefix is None else prefix)


class Parser(argparse.ArgumentParser):
    """argparse with its headings and messages in Portuguese and exit code 2 for usage errors."""

    def __init__(self, **kwargs):
        super().__init__(formatter_class=_Formatter, add_help=False, **kwargs)
        self._positionals.title = "argumentos"
        self._optionals.title = "opções"
        self.add_argument("-h", "--help", action="help", help="mostra esta ajuda e sai")

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"erro: {translate(message)}\n")
