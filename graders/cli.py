"""`python -m graders EXERCISE FILE...`: grade submissions on an instructor's machine.

Each submission is graded in its own subprocess (graders.worker) with a wall-clock,
CPU and memory limit, so one hostile or looping submission cannot touch another's
verdict. Exit code: 0 all passed, 1 some criterion failed, 2 usage or input error.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from . import exercises
from .submission import SubmissionError, read
from .verdict import failed_all

PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent)
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
    parser.add_argument("--format", choices=("text", "json", "csv"), default="text", help="formato da saída (padrão: text)")
    parser.add_argument("--timeout", type=float, default=30.0, help="segundos por submissão (padrão: 30)")
    parser.add_argument("--memory", type=int, default=1024, help="memória máxima por submissão, em MB (padrão: 1024)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="submissões corrigidas ao mesmo tempo")
    progress = parser.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_true", default=None, help="mostra a barra de progresso")
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="esconde a barra de progresso")
    return parser


# --- one submission ------------------------------------------------------------------------


def grade_file(exercise: str, path: str, timeout: float, memory_mb: int) -> dict:
    """The verdict for one file as a dict, or {"file", "exercise", "error"} for bad input."""
    try:
        submission = read(path, exercise)
        if submission.answers is None and not exercises.code_criteria(exercise):
            raise SubmissionError(f"o exercício {exercise!r} se responde com o arquivo .json exportado pelo site")
    except SubmissionError as exc:
        return {"file": path, "exercise": exercise, "passed": False, "criteria": [], "error": str(exc)}
    token = secrets.token_hex(16)
    job = {
        "token": token, "exercise": exercise, "code": submission.code, "answers": submission.answers,
        "filename": os.path.basename(path), "memory_mb": memory_mb, "cpu_seconds": int(timeout) + 5,
    }
    workdir = tempfile.mkdtemp(prefix="correcao-")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": PACKAGE_PARENT,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUTF8": "1",
        "PYTHONIOENCODING": "utf-8",
        "TMPDIR": workdir,
        "HOME": workdir,
    }
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "graders.worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=workdir, env=env, start_new_session=True,
        )
        try:
            stdout, _ = proc.communicate(json.dumps(job).encode("utf-8"), timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill(proc)
            return _failed(exercise, path, submission,
                           f"Tempo esgotado ({timeout:g} s): o código provavelmente entra em um laço infinito.")
        # Only a worker that finished cleanly speaks for the submission; its verdict is the last line.
        lines = stdout.decode("utf-8", "replace").splitlines() if proc.returncode == 0 else []
        for line in reversed(lines):
            if line.startswith(token + " "):
                data = json.loads(line[len(token) + 1:])
                data["file"] = path
                data.pop("output", None)
                return data
        return _failed(exercise, path, submission,
                       f"O processo de correção terminou sem veredito (código de saída {proc.returncode}): "
                       "o código provavelmente encerrou o processo à força.")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _kill(proc):
    try:
        os.killpg(proc.pid, 9)
    except (ProcessLookupError, PermissionError, AttributeError):
        proc.kill()
    proc.wait()


def _failed(exercise: str, path: str, submission, message: str) -> dict:
    ids = exercises.criterion_ids(exercise) if submission.answers is not None else exercises.code_criteria(exercise)
    verdict = failed_all(exercise, ids, message)
    verdict.file = path
    return verdict.to_dict()


# --- output --------------------------------------------------------------------------------


def render_text(results: list[dict]) -> str:
    lines = []
    for r in results:
        if "error" in r:
            lines.append(f"{r['file']}: ERRO DE ENTRADA — {r['error']}")
            continue
        ok = sum(c["passed"] for c in r["criteria"])
        status = "APROVADO" if r["passed"] else "REPROVADO"
        lines.append(f"{r['file']}: {status} ({ok} de {len(r['criteria'])} critérios)")
        for c in r["criteria"]:
            mark = "ok    " if c["passed"] else "falhou"
            note = c["message"] or c.get("hint", "")
            lines.append(f"  [{mark}] {c['id']}" + (f": {note}" if note else ""))
    return "\n".join(lines) + "\n"


def render_csv(results: list[dict], exercise: str) -> str:
    buffer = io.StringIO()
    ids = exercises.criterion_ids(exercise)
    writer = csv.writer(buffer)
    writer.writerow(["file", "exercise", "passed", *ids, "error"])
    for r in results:
        states = {c["id"]: ("ok" if c["passed"] else "falhou") for c in r["criteria"]}
        writer.writerow([r["file"], exercise, "sim" if r["passed"] else "não",
                         *(states.get(i, "") for i in ids), r.get("error", "")])
    return buffer.getvalue()


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


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.exercise not in exercises.EXERCISE_IDS:
        sys.stderr.write(f"erro: exercício desconhecido {args.exercise!r}; use um de: {', '.join(exercises.EXERCISE_IDS)}\n")
        return EXIT_INPUT
    if args.timeout <= 0 or args.memory < 64 or args.jobs < 1:
        sys.stderr.write("erro: --timeout precisa ser positivo, --memory pelo menos 64 e --jobs pelo menos 1\n")
        return EXIT_INPUT
    show = args.progress if args.progress is not None else (len(args.files) > 5 and sys.stderr.isatty())
    progress = Progress(len(args.files), show)
    results: list[dict | None] = [None] * len(args.files)
    with ThreadPoolExecutor(max_workers=min(args.jobs, len(args.files))) as pool:
        futures = {
            pool.submit(grade_file, args.exercise, path, args.timeout, args.memory): i
            for i, path in enumerate(args.files)
        }
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            progress.step()
    if args.format == "json":
        sys.stdout.write(json.dumps(results, ensure_ascii=False, indent=2) + "\n")
    elif args.format == "csv":
        sys.stdout.write(render_csv(results, args.exercise))
    else:
        sys.stdout.write(render_text(results))
    if any("error" in r for r in results):
        return EXIT_INPUT
    return EXIT_OK if all(r["passed"] for r in results) else EXIT_FAILED

