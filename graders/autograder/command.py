"""`python -m graders autograder gradescope|prairielearn|classroom SAIDA/`: write the ready autograder
of one platform (the graders and exercises vendored in), as the instructor uploads it."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from .. import exercises
from ..arguments import EXIT_USAGE, Parser
from . import classroom, gradescope, prairielearn

# The CLI's own conventions (graders/cli/options.py), kept here: this package sits on the CLI's
# floor and imports nothing from it (the Portuguese parser both use is graders/arguments.py).
ALL_EXERCISES = "todos"
GRADE_MAX = 1000.0
TIMEOUT_MAX = 3600.0


def _number(text: str, high: float, what: str) -> float:
    try:
        value = float(text.strip().replace(",", "."))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} não é um número") from None
    if not math.isfinite(value) or value <= 0 or value > high:
        raise argparse.ArgumentTypeError(f"{text!r} não serve: use {what} maior que 0 e no máximo {high:.0f}")
    return value


def _grade_max(text: str) -> float:
    return _number(text, GRADE_MAX, "um número")


def _seconds(text: str) -> float:
    return _number(text, TIMEOUT_MAX, "um número de segundos")

PLATFORMS = ("gradescope", "prairielearn", "classroom")
HELP_TIMEOUT = 10.0


def build_parser() -> Parser:
    parser = Parser(prog="python -m graders autograder",
                    description="Gera o autograder pronto de uma plataforma (Gradescope, PrairieLearn ou GitHub "
                                "Classroom), com os corretores e os exercícios dentro: nada é baixado na hora de corrigir.")
    parser.add_argument("platform", metavar="PLATAFORMA", choices=PLATFORMS, help="gradescope, prairielearn ou classroom")
    parser.add_argument("out", metavar="SAIDA", help="pasta onde o autograder é escrito (nova ou vazia)")
    parser.add_argument("--exercicio", default=ALL_EXERCISES, choices=(*exercises.EXERCISE_IDS, ALL_EXERCISES),
                        help=f"o exercício corrigido (padrão: {ALL_EXERCISES}, a lição inteira)")
    parser.add_argument("--nota-max", metavar="N", type=_grade_max, default=None,
                        help="a nota de quem cumpre todos os critérios: Gradescope (padrão 10) e Classroom "
                             "(padrão: 1 ponto por critério); no PrairieLearn a nota vai de 0 a 1")
    parser.add_argument("--timeout", metavar="SEGUNDOS", type=_seconds, default=HELP_TIMEOUT,
                        help="limite de tempo de cada execução do código do aluno (padrão: 10)")
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        parser.print_usage(sys.stderr)
        sys.stderr.write(f"erro: {out} já existe e não é uma pasta vazia\n")
        return EXIT_USAGE
    if args.platform == "prairielearn" and args.nota_max is not None:
        parser.print_usage(sys.stderr)
        sys.stderr.write("erro: no PrairieLearn a nota vai de 0 a 1 (os pontos da questão são dados na avaliação, "
                         "infoAssessment.json): não use --nota-max\n")
        return EXIT_USAGE
    out.mkdir(parents=True, exist_ok=True)
    if args.platform == "gradescope":
        written = gradescope.write(out, args.exercicio, args.nota_max or 10.0, args.timeout)
    elif args.platform == "prairielearn":
        written = prairielearn.write(out, args.exercicio, args.timeout)
    else:
        written = classroom.write(out, args.exercicio, args.nota_max, args.timeout)
    for path in written:
        print(path)
    return 0
