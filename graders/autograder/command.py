"""`python -m graders autograder gradescope|prairielearn|classroom SAIDA/`: write the ready autograder
of one platform (the graders and exercises vendored in), as the instructor uploads it."""

from __future__ import annotations

import sys
from pathlib import Path

from .. import exercises
# The conventions both command lines share (the CLI's options.py reads the same ones).
from ..arguments import ALL_EXERCISES, EXIT_USAGE, Parser
from ..arguments import grade_max as _grade_max, seconds as _seconds
from . import classroom, gradescope, prairielearn

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
