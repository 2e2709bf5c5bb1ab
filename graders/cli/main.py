"""`python -m graders EXERCISE FILE...`: grade submissions on an instructor's machine.

Student code runs only in sandboxed processes (graders.cli.sandbox), traced from below Python; the
judge runs here, on the trace. One submission's failure, output or attack is that file's own
verdict, never the batch's. Exit code: 0 all passed, 1 some criterion failed, 2 usage or input error.
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed

from .. import exercises
from . import html_report, report
from ..grading import grade
from ..submission import SubmissionError, read
from ..judge.verdict import failed_all
from .sandbox import Sandbox, bwrap_problem

EXIT_OK, EXIT_FAILED, EXIT_INPUT = 0, 1, 2


class _Formatter(argparse.HelpFormatter):
    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, actions, groups, prefix="uso: " if prefix is None else prefix)


class _Parser(argparse.ArgumentParser):
    """argparse with its headings in Portuguese and exit code 2 for usage errors."""

    def __init__(self, **kwargs):
        super().__init__(formatter_class=_Formatter, add_help=False, **kwargs)
        self._positionals.title = "argumentos"
        self._optionals.title = "opções"
        self.add_argument("-h", "--help", action="help", help="mostra esta ajuda e sai")

    def error(self, message):
        self.print_usage(sys.stderr)
        message = message.replace("the following arguments are required", "faltam os argumentos")
        message = message.replace("argument ", "argumento ").replace("invalid choice", "opção inválida")
        message = message.replace("choose from", "escolha entre")
        self.exit(EXIT_INPUT, f"erro: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m graders",
        description="Corrige submissões dos exercícios da Lição 2 (checkpoints), cada uma isolada num processo.",
        epilog="Código de saída: 0 se tudo passou, 1 se algum critério falhou, 2 para erro de uso ou de entrada.",
    )
    parser.add_argument("exercise", metavar="EXERCICIO", help="um de: " + ", ".join(exercises.EXERCISE_IDS))
    parser.add_argument("files", metavar="ARQUIVO", nargs="+", help=".py (código) ou .json (respostas exportadas pelo site)")
    parser.add_argument("--format", choices=("text", "json", "csv", "html"), default="text",
                        help="formato da saída (padrão: text; html: um relatório da turma num arquivo só)")
    parser.add_argument("--timeout", type=float, default=10.0, help="segundos por submissão (padrão: 10)")
    parser.add_argument("--memory", type=int, default=1024, help="memória máxima por submissão, em MB (padrão: 1024)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="submissões corrigidas ao mesmo tempo")
    parser.add_argument(
        "--isolamento", choices=("auto", "estrito", "reduzido"), default="auto",
        help="auto: usa o bubblewrap quando funciona, senão avisa e segue com isolamento reduzido; "
             "estrito: recusa corrigir sem o bubblewrap; reduzido: não usa o bubblewrap (padrão: auto)",
    )
    progress = parser.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_true", default=None, help="mostra a barra de progresso")
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="esconde a barra de progresso")
    return parser


# --- one submission ------------------------------------------------------------------------


def grade_file(exercise: str, path: str, timeout: float, sandboxes: "queue.Queue[Sandbox]") -> dict:
    """The verdict for one file as a dict, or {"file", "exercise", "error"} for bad input."""
    try:
        submission = read(path, exercise)
        if submission.answers is None and not exercises.code_criteria(exercise):
            raise SubmissionError(f"o exercício {exercise!r} se responde com o arquivo .json exportado pelo site")
    except SubmissionError as exc:
        return report.normalise({"file": path, "exercise": exercise, "passed": False, "criteria": [], "error": str(exc)})
    sandbox = sandboxes.get()
    try:
        verdict = grade(exercise, submission, os.path.basename(path),
                        run=lambda source, filename, job: sandbox.run(source, filename, job, timeout))
        data = verdict.to_dict()
        data["file"] = path
        data.pop("output", None)
        return report.normalise(data)  # here, in the worker, while the other workers' students run
    except Exception as exc:  # noqa: BLE001 - one file's surprise never breaks the batch
        return _failed(exercise, path, submission, f"Erro interno do corretor ao avaliar este arquivo ({type(exc).__name__}).")
    finally:
        sandboxes.put(sandbox)


def _failed(exercise: str, path: str, submission, message: str) -> dict:
    ids = exercises.criterion_ids(exercise) if submission.answers is not None else exercises.code_criteria(exercise)
    verdict = failed_all(exercise, ids, message)
    verdict.file = path
    return verdict.to_dict()


class Progress:
    def __init__(self, total: int, enabled: bool):
        self.total, self.done, self.enabled = total, 0, enabled

    def step(self):
        self.done += 1
        if self.enabled:
            width = 30
            filled = width * self.done // self.total
            sys.stderr.write(f"\rCorrigindo [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}")
            if self.done == self.total:
                sys.stderr.write("\n")
            sys.stderr.flush()


# --- main ----------------------------------------------------------------------------------


def _precompile():
    """Up-to-date bytecode for the graders: each sandbox imports them from a read-only folder."""
    import compileall

    try:
        compileall.compile_dir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), quiet=2, workers=1)
    except OSError:
        pass  # a read-only installation: the sandbox compiles in memory, a little slower


def _files_first(argv: list[str]) -> list[str]:
    """A file named like an option (`-aluno.py`) is a file: every positional goes after `--`."""
    takes_value = {"--format", "--timeout", "--memory", "--jobs", "--isolamento"}
    known = takes_value | {"-h", "--help", "--progress", "--no-progress"}
    options, positionals = [], []
    items = iter(argv)
    for item in items:
        if item == "--":
            positionals.extend(items)
        elif item.split("=", 1)[0] in known:
            options.append(item)
            if item in takes_value:
                options.append(next(items, ""))
        elif item.startswith("-") and not os.path.lexists(item):
            options.append(item)  # an unknown option: argparse says so
        else:
            positionals.append(item)
    return options + ["--", *positionals]


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(_files_first(argv))
    if args.exercise not in exercises.EXERCISE_IDS:
        sys.stderr.write(f"erro: exercício desconhecido {args.exercise!r}; use um de: {', '.join(exercises.EXERCISE_IDS)}\n")
        return EXIT_INPUT
    if args.timeout <= 0 or args.memory < 64 or args.jobs < 1:
        sys.stderr.write("erro: --timeout precisa ser positivo, --memory pelo menos 64 e --jobs pelo menos 1\n")
        return EXIT_INPUT
    isolated = args.isolamento != "reduzido"
    if isolated:
        problem = bwrap_problem()
        if problem and args.isolamento == "estrito":
            sys.stderr.write(f"erro: isolamento estrito pedido, mas {problem}. Instale o pacote bubblewrap "
                             "ou use --isolamento reduzido.\n")
            return EXIT_INPUT
        if problem:
            isolated = False
            sys.stderr.write(f"aviso: isolamento reduzido — {problem}. O código dos alunos roda em processos "
                             "comuns, contidos só por um vigia do Python (veja o README).\n")
    _precompile()
    show = args.progress if args.progress is not None else (len(args.files) > 5 and sys.stderr.isatty())
    progress = Progress(len(args.files), show)
    results: list[dict | None] = [None] * len(args.files)
    workers = min(args.jobs, len(args.files))
    sandboxes: queue.Queue = queue.Queue()
    for _ in range(workers):
        sandboxes.put(Sandbox(isolated=isolated, memory_mb=args.memory))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {
            pool.submit(grade_file, args.exercise, path, args.timeout, sandboxes): i
            for i, path in enumerate(args.files)
        }
        for future in as_completed(futures):
            index = futures[future]
            try:
                results[index] = future.result()
            except Exception as exc:  # noqa: BLE001 - one file's surprise never breaks the batch
                results[index] = {"file": args.files[index], "exercise": args.exercise, "passed": False,
                                  "criteria": [], "error": f"erro interno do corretor ({type(exc).__name__})"}
            progress.step()
    while not sandboxes.empty():
        sandboxes.get().close()
    results = [report.normalise(r) for r in results]
    if args.format == "json":
        sys.stdout.write(report.render_json(results))
    elif args.format == "csv":
        sys.stdout.write(report.render_csv(results, args.exercise))
    elif args.format == "html":
        sys.stdout.write(html_report.render_html(results, args.exercise))
    else:
        sys.stdout.write(report.render_text(results))
    if any("error" in r for r in results):
        return EXIT_INPUT
    return EXIT_OK if all(r["passed"] for r in results) else EXIT_FAILED

