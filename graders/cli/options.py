"""The CLI's command line: argparse with every heading and message in Portuguese, and option values
checked (finite, positive, bounded) before anything starts, so a typo never spoils a batch.
"""

from __future__ import annotations

import argparse
import math
import os
import sys

from .. import exercises
from ..arguments import ALL_EXERCISES, EXIT_USAGE, GRADE_MAX, TIMEOUT_MAX, Parser, translate  # noqa: F401 (the CLI's names)
from ..arguments import grade_max as _grade_max, number as _number, seconds as _seconds

MEMORY_MIN, MEMORY_MAX = 64, 1 << 20
JOBS_MAX = 256
MAX_OPS_MIN, MAX_OPS_MAX = 100, 10_000_000
MAX_WRITE_MAX_MB = 4096
MAX_OUTPUT_MAX_MB = 1024
FORMATS = ("text", "json", "csv", "planilha", "html", "moodle", "moodle-tarefa", "vpl")



def _bounded_int(low: int, high: int, unit: str):
    def parse(text: str) -> int:
        value = _number(text)
        if not math.isfinite(value) or value != int(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r} não serve: use um número inteiro de {low} a {high}{unit}")
        return int(value)
    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="python -m graders",
        description="Corrige submissões dos exercícios da Lição 2 (checkpoints), cada uma isolada num processo.",
        epilog="Código de saída: 0 se tudo passou; 1 se algum critério falhou; 2 para erro de uso ou se nenhum "
               "arquivo pôde ser corrigido; 3 se algum arquivo não pôde ser corrigido (ilegível ou parado por um "
               "limite do corretor): esse aluno fica sem nota, e os outros foram corrigidos; 130 se a correção foi "
               "interrompida (Ctrl+C).",
    )
    parser.add_argument("exercise", metavar="EXERCICIO",
                        help=f"um de: {', '.join(exercises.EXERCISE_IDS)}; ou {ALL_EXERCISES}: cada exercício "
                             "encontrado em cada arquivo exportado")
    parser.add_argument("files", metavar="ARQUIVO", nargs="+",
                        help=".py (código), .json (respostas exportadas pelo site) ou uma pasta (lida com as subpastas)")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="formato da saída (padrão: text; csv: para programas; planilha: CSV que uma planilha "
                             "em português abre direto; html: um relatório da turma num arquivo só; moodle: CSV para "
                             "Importar notas do Moodle; moodle-tarefa: a planilha de notas da tarefa (--turma) preenchida, para "
                             "Enviar planilha de notas; vpl: linhas Comment/Grade da avaliação do VPL)")
    parser.add_argument("--turma", metavar="TURMA.CSV",
                        help="lista da turma (a exportação de participantes do Moodle, ou um CSV com nome e e-mail "
                             "e/ou matrícula): cada aluno da lista ganha uma linha, mesmo quem não entregou")
    parser.add_argument("--exercicios", metavar="ID,ID",
                        help="com todos: os exercícios que valem nota (padrão: todos os da lição)")
    parser.add_argument("--nota-max", metavar="N", type=_grade_max, default=None,
                        help="a nota de quem cumpre todos os critérios (padrão: 10; com a planilha de notas do "
                             "Moodle, a Nota máxima dela; no VPL, VPL_GRADEMAX)")
    parser.add_argument("--zip", action="store_true",
                        help="lê os .py e .json de dentro de cada .zip, na memória, sem extrair (com limites de "
                             "tamanho e de quantidade); sem esta opção, um .zip é listado como ignorado")
    parser.add_argument("--pesos", metavar="PESOS.TOML",
                        help="pesos dos exercícios e critérios (padrão: todos os critérios valem o mesmo; veja PROFESSORES.md)")
    parser.add_argument("--timeout", metavar="SEGUNDOS", type=_seconds, default=10.0,
                        help=f"limite de tempo de cada execução do código do aluno, em segundos (padrão: 10; "
                             f"máximo: {TIMEOUT_MAX:.0f})")
    parser.add_argument("--memory", metavar="MB", type=_bounded_int(MEMORY_MIN, MEMORY_MAX, " MB"), default=1024,
                        help="memória máxima por submissão, em MB (padrão: 1024)")
    parser.add_argument("--jobs", metavar="N", type=_bounded_int(1, JOBS_MAX, ""), default=os.cpu_count() or 1,
                        help="submissões corrigidas ao mesmo tempo (padrão: o número de processadores)")
    parser.add_argument("--max-ops", metavar="N", type=_bounded_int(MAX_OPS_MIN, MAX_OPS_MAX, ""), default=20_000,
                        help="limite do corretor: chamadas de arquivo registradas por execução (padrão: 20000)")
    parser.add_argument("--max-escrita", metavar="MB", type=_bounded_int(1, MAX_WRITE_MAX_MB, " MB"), default=16,
                        help="limite do corretor: MB gravados por execução (padrão: 16)")
    parser.add_argument("--max-saida", metavar="MB", type=_bounded_int(1, MAX_OUTPUT_MAX_MB, " MB"), default=1,
                        help="limite do corretor: MB impressos por execução (padrão: 1)")
    parser.add_argument(
        "--isolamento", choices=("auto", "estrito", "reduzido"), default="auto",
        help="auto: usa o bubblewrap quando funciona, senão avisa e segue com isolamento reduzido; "
             "estrito: recusa corrigir sem o bubblewrap; reduzido: não usa o bubblewrap (padrão: auto)",
    )
    progress = parser.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_true", default=None,
                          help="mostra a barra de progresso (padrão: só num terminal, com mais de 5 arquivos)")
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="esconde a barra de progresso")
    return parser


def _takes_value(parser: argparse.ArgumentParser) -> tuple[set[str], set[str]]:
    takes, known = set(), set()
    for action in parser._actions:  # noqa: SLF001 - the option strings argparse itself knows
        known |= set(action.option_strings)
        if action.nargs != 0:
            takes |= set(action.option_strings)
    return takes, known


def files_first(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """A file named like an option (`-aluno.py`) is a file: every positional goes after `--`."""
    takes_value, known = _takes_value(parser)
    options, positionals = [], []
    items = iter(argv)
    for item in items:
        if item == "--":
            positionals.extend(items)
        elif item.split("=", 1)[0] in known:
            value = next(items, None) if item in takes_value else None
            # `--timeout=-inf`: joined, a value that looks like an option is still this option's value.
            options.append(item if value is None else f"{item}={value}")
        elif item.startswith("-") and not os.path.lexists(item) and not _is_number(item):
            options.append(item)  # an unknown option: argparse says so
        else:
            positionals.append(item)
    return options + ["--", *positionals]


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def parse(argv: list[str]) -> argparse.Namespace:
    """The parsed arguments, or exit 2 with a Portuguese message."""
    parser = build_parser()
    args = parser.parse_args(files_first(argv, parser))
    if args.exercise != ALL_EXERCISES and args.exercise not in exercises.EXERCISE_IDS:
        parser.print_usage(sys.stderr)
        parser.exit(EXIT_USAGE, f"erro: exercício desconhecido {args.exercise!r}; use um de: "
                                f"{', '.join(exercises.EXERCISE_IDS)} ou {ALL_EXERCISES}\n")
    if args.exercicios is not None:
        wanted = [e.strip() for e in args.exercicios.split(",") if e.strip()]
        unknown = [e for e in wanted if e not in exercises.EXERCISE_IDS]
        if unknown or not wanted or args.exercise != ALL_EXERCISES:
            parser.print_usage(sys.stderr)
            why = (f"exercício desconhecido {unknown[0]!r}" if unknown else
                   "--exercicios só vale com todos" if wanted else "--exercicios precisa de pelo menos um exercício")
            parser.exit(EXIT_USAGE, f"erro: {why}; use: {', '.join(exercises.EXERCISE_IDS)}\n")
        args.exercicios = [e for e in exercises.EXERCISE_IDS if e in wanted]
    return args


def assignment(args: argparse.Namespace) -> list[str]:
    """The exercises that count: the one asked for, or every exercise of the lesson (or --exercicios)."""
    if args.exercise != ALL_EXERCISES:
        return [args.exercise]
    return list(args.exercicios or exercises.EXERCISE_IDS)
