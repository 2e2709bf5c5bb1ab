"""`python -m graders EXERCISE FILE...`: grade submissions on an instructor's machine.

Student code runs only in sandboxed processes (graders.sandbox), traced from below Python; the
judge runs here, on the trace. One submission's failure, output or attack is that file's own
verdict, never the batch's. Ctrl+C stops the batch within a second and still writes the whole report:
every file stays in it, the ones not graded yet as "não avaliado" (classreport's `gradable: false`,
reason "correção interrompida"), so their students get no grade (no gradebook row, an empty worksheet
cell), never a zero or a "não entregou".
Exit codes: see EXIT_* below (and PROFESSORES.md).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass

from .. import exercises, similarity
from . import classreport, formats, inspection, metadata, options, report, roster
from .collect import collect_all
from .copies import possible_copies
from ..grading import grade
from ..submission import SubmissionError, Submission, export_entries, from_python, read_text, stem, text_of
from ..judge.ends import end_text
from ..replay.states import TooManyStates
from ..sandbox.reduced import fences_text
from ..sandbox.sandbox import Sandbox, bwrap_problem, planned_fences, sweep_abandoned
from ..sandbox.turns import Turns

EXIT_OK, EXIT_FAILED, EXIT_NOTHING_GRADED, EXIT_SOME_UNGRADED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_INPUT = EXIT_NOTHING_GRADED  # usage errors too


@dataclass(frozen=True)
class Settings:
    timeout: float
    caps: dict  # the grader's limits per run: {"events", "data", "output"}


class _Interrupted(Exception):
    """Ctrl+C arrived: this run is not started (or its verdict is dropped)."""


# --- reading the files ---------------------------------------------------------------------


def _exercise_in_path(path: str) -> str | None:
    """`todos` with a bare .py: the exercise its folder or name says (turma/nivel-2/ana.py)."""
    parts = [p.lower() for p in os.path.normpath(path).split(os.sep)]
    parts[-1] = os.path.splitext(parts[-1])[0]
    for part in reversed(parts):
        # `nivel2`, `nivel_2` and `Nível-2` name nivel-2 too.
        squeezed = "".join(ch for ch in roster.fold(part) if ch.isalnum())
        for ex in sorted(exercises.EXERCISE_IDS, key=len, reverse=True):
            if ex in part or ex.replace("-", "") in squeezed:
                return ex
    return None


_input_error = classreport.input_error


def _read(path: str) -> tuple[str, bool]:
    """read_text, plus a .py that declares its own encoding (`# -*- coding: latin-1 -*-`), as Python
    itself would read it."""
    try:
        return read_text(path)
    except SubmissionError as exc:
        if not path.lower().endswith(".py") or "UTF-8" not in str(exc):
            raise
        import io
        import tokenize

        from ..submission import _read_bytes

        data = _read_bytes(path)
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            if encoding in ("utf-8", "utf-8-sig"):
                raise exc
            text = data.decode(encoding)
        except (SyntaxError, LookupError, UnicodeDecodeError):
            raise exc from None
        return text.replace("\r\n", "\n").replace("\r", "\n"), False


def prepare(entries, exercise: str) -> tuple[list[dict], list[tuple]]:
    """(rows, jobs): one row per file ({file, shown, student, kind, results, error?}; graders.cli.classreport groups them by student), and one job (row index, exercise,
    Submission) per exercise to grade in it. Files are read here; a file that cannot be read
    is its row's error."""
    everything = exercise == options.ALL_EXERCISES
    rows, jobs = [], []
    for entry in entries:
        # What the name says until the file is read: an unreadable file still has a kind and a student.
        suffix = os.path.splitext(entry.path)[1].lower()
        kind = {".py": "py", ".json": "export"}.get(suffix) if not (entry.empty or entry.missing) else None
        row = {"file": report.clean(entry.path) or report.UNKNOWN_FILE, "shown": report.clean(entry.shown),
               "student": report.clean(stem(entry.path), 120) if kind == "py" else None, "kind": kind, "results": {}}
        rows.append(row)
        try:
            if entry.missing:
                raise SubmissionError(f"pasta ou arquivo não encontrado: {entry.path}")
            if entry.empty:
                raise SubmissionError("a pasta não tem nenhum arquivo .py ou .json")
            text, is_export = text_of(entry.path, entry.data) if entry.data is not None else _read(entry.path)
            if is_export:
                row["kind"] = "export"
                student, found = export_entries(text)
                # Cut at 120 characters, a name may end in a space the student never typed there.
                row["student"] = report.clean(student, 120).rstrip() or None if student else None
                first = next(iter(found.values()), None)
                for key in ("email", "id_number"):  # version 3: who the student said they are
                    value = getattr(first, key, None)
                    row[key] = report.clean(value, 120).strip() or None if value else None
                wanted = [ex for ex in exercises.EXERCISE_IDS if ex in found] if everything else [exercise]
                submissions = {ex: found.get(ex) or Submission(code=None, answers={}, student=student) for ex in wanted}
                if everything and not wanted:
                    raise SubmissionError("o arquivo de respostas não tem nenhum exercício da lição")
            else:
                row["kind"] = "py"
                student = stem(entry.path)
                row["student"] = report.clean(student, 120)
                ex = _exercise_in_path(entry.path) if everything else exercise
                if ex is None:
                    raise SubmissionError("com todos, um .py precisa estar numa pasta (ou ter no nome) o exercício: "
                                          + ", ".join(e for e in exercises.EXERCISE_IDS if exercises.code_criteria(e)))
                submissions = {ex: from_python(text, student)}
            for ex, submission in submissions.items():
                if submission.answers is None and not exercises.code_criteria(ex):
                    row["results"][ex] = _input_error(entry.path, ex, f"o exercício {ex!r} se responde com o arquivo "
                                                                      ".json exportado pelo site")
                else:
                    jobs.append((len(rows) - 1, ex, submission))
        except SubmissionError as exc:
            if everything:
                row["error"] = report.clean(str(exc))
            else:
                row["results"][exercise] = _input_error(entry.path, exercise, str(exc))
    return rows, jobs


# --- one submission ------------------------------------------------------------------------


def _limit_message(trace, settings: Settings) -> str | None:
    """The grader limit that stopped this run, said as the grader's and with the option that raises it."""
    limits = trace.limits or {}
    if trace.end == "flood":
        what = f"o código imprimiu mais de {settings.caps['output'] >> 20} MB"
        option = "--max-saida"
    elif trace.end == "runaway" and "events" in limits:
        what = f"o código fez mais de {settings.caps['events']} chamadas de arquivo"
        option = "--max-ops"
    elif trace.end == "runaway" and "data" in limits:
        what = f"o código gravou mais de {settings.caps['data'] >> 20} MB"
        option = "--max-escrita"
    else:
        return None
    return (f"limite do corretor: {what}, e a correção parou antes de julgar. Isto não é uma nota do aluno: "
            f"se o código parece certo, corrija de novo com um limite maior ({option}).")


def grade_job(path: str, exercise: str, submission: Submission, settings: Settings,
              sandboxes: Turns, stop: threading.Event, order: int = 0, shapes: dict | None = None) -> dict | None:
    """The normalised verdict of one exercise of one file (job number `order` of the batch); None when
    Ctrl+C came first. `shapes` receives the code's similarity.shape, for the copies section."""
    if stop.is_set():
        return None
    traces = []

    def run(source, filename, job):
        if stop.is_set():
            raise _Interrupted
        # A sandbox only for the run itself: it goes back to the pool before this thread judges, so
        # another submission's student code runs while this one's trace is judged.
        sandbox = sandboxes.get(order)
        try:
            if stop.is_set():  # Ctrl+C while this thread waited for a sandbox: no new run starts
                raise _Interrupted
            trace = sandbox.run(source, filename, job, settings.timeout, settings.caps)
        finally:
            sandboxes.put(sandbox)
        traces.append(trace)
        return trace

    try:
        # The report is the instructor's: every explanation stays (the page closes them for the student).
        verdict = grade(exercise, submission, os.path.basename(path), run=run, close_diagnosis=False)
        if stop.is_set():
            return None  # its sandbox may have been killed under it: no verdict from a cut run
        # Read beside the verdict, never into it: the signs change no criterion and no grade.
        # Parsed once, here, while the other workers' students run: for the signs and for the copies.
        tree = similarity.syntax_tree(submission.code) if isinstance(submission.code, str) else None
        signs = inspection.detect(submission.code, traces, tree)
        if shapes is not None and tree is not None:
            shapes[submission.code] = similarity.shape(tree)
        limit = next((m for m in (_limit_message(t, settings) for t in traces) if m), None)
        broken = next((t for t in traces if t.end == "broken"), None)
        if broken is not None and not limit:
            # The grader's own failure (the sandbox, the tap): no criterion was judged, so no grade.
            limit = (f"a correção deste arquivo falhou por um problema do corretor, não do código do aluno "
                     f"({end_text(broken)}). Isto não é uma nota do aluno: corrija este arquivo de novo.")
        if limit:
            return report.normalise({"file": path, "exercise": exercise, "passed": False, "criteria": [],
                                     "error": limit, "limit": True, "inspection": signs})
        data = verdict.to_dict()
        data["file"] = path
        data.pop("output", None)
        data["inspection"] = signs
        return report.normalise(data)  # here, in the worker, while the other workers' students run
    except _Interrupted:
        return None
    except TooManyStates as exc:
        if stop.is_set():
            return None
        message = (f"limite do corretor: o código mudou o arquivo julgado tantas vezes, ou tão grande, que os estados "
                   f"de queda passariam de {exc.args[1] >> 20} MB ({exc.args[0] >> 20} MB ao parar), e a correção parou "
                   "antes de julgar. Isto não é uma nota do aluno: um checkpoint comum, gravado algumas vezes, ocupa "
                   "poucos KB.")
        return report.normalise({"file": path, "exercise": exercise, "passed": False, "criteria": [],
                                 "error": message, "limit": True,
                                 "inspection": inspection.detect(submission.code, traces)})
    except Exception as exc:  # noqa: BLE001 - one file's surprise never breaks the batch
        if stop.is_set():
            return None
        # The grader's own bug: this file is not graded (never a number nobody earned), the batch goes on.
        return report.normalise({"file": path, "exercise": exercise, "passed": False, "criteria": [],
                                 "error": f"Erro interno do corretor ao avaliar este arquivo ({type(exc).__name__}). "
                                          "Isto não é uma nota do aluno: corrija este arquivo de novo; se o erro "
                                          "se repetir, avise quem mantém o corretor.",
                                 "limit": True, "inspection": []})


class Progress:
    def __init__(self, total: int, enabled: bool):
        self.total, self.done, self.enabled = total, 0, enabled

    def step(self):
        self.done += 1
        if self.enabled:
            width = 30
            filled = width * self.done // max(self.total, 1)
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


def _isolation(choice: str) -> bool | None:
    """True: bubblewrap; False: reduced; None: refused (strict asked and unavailable)."""
    if choice == "reduzido":
        return False
    problem = bwrap_problem()
    if problem and choice == "estrito":
        sys.stderr.write(f"erro: isolamento estrito pedido, mas {problem}. Instale o pacote bubblewrap "
                         "ou use --isolamento reduzido.\n")
        return None
    if problem:
        sys.stderr.write(f"aviso: isolamento reduzido — {problem}. O código dos alunos roda sem o bubblewrap, "
                         f"com estas cercas: {fences_text(planned_fences(False))} (veja PROFESSORES.md, Isolamento).\n")
        return False
    return True


def _grade_all(rows, jobs, args, isolated: bool, stop: threading.Event, shapes: dict) -> list[int]:
    """Grade every job into its row; returns the indexes of the jobs left ungraded (Ctrl+C). Each
    graded code's similarity.shape goes into `shapes`."""
    settings = Settings(
        timeout=args.timeout,
        caps={"events": args.max_ops, "data": args.max_escrita << 20, "output": args.max_saida << 20},
    )
    show = args.progress if args.progress is not None else (len(jobs) > 5 and sys.stderr.isatty())
    progress = Progress(len(jobs), show)
    workers = max(1, min(args.jobs, len(jobs)))
    sweep_abandoned()  # what an earlier CLI, killed outright, left in /dev/shm
    created = [Sandbox(isolated=isolated, memory_mb=args.memory) for _ in range(workers)]
    sandboxes = Turns(created)
    left = []
    # Twice as many threads as sandboxes: while one thread judges a trace (pure Python, here), another
    # already has that sandbox running the next submission, so no sandbox waits for the judge.
    pool = ThreadPoolExecutor(max_workers=workers * 2)
    # A thread whose run just ended (or whose sandbox just came free) waits for the GIL while another
    # judges: at the default 5 ms switch interval a sandbox could sit idle that long between runs.
    switch = sys.getswitchinterval()
    sys.setswitchinterval(min(switch, 0.0005))
    try:
        futures = {pool.submit(grade_job, rows[r]["file"], ex, sub, settings, sandboxes, stop, i, shapes): i
                   for i, (r, ex, sub) in enumerate(jobs)}
        pending = set(futures)
        while pending and not stop.is_set():
            done, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
            for future in done:
                row_index, ex, _sub = jobs[futures[future]]
                result = future.result()
                if result is None:
                    left.append(futures[future])
                    continue
                rows[row_index]["results"][ex] = result
                progress.step()
        if stop.is_set():
            for future in pending:
                future.cancel()
            left += [futures[f] for f in pending]
            running = {f for f in pending if not f.cancelled()}
            while running:
                # Kill until every worker has let go: one may have been starting a sandbox just now.
                for sandbox in created:
                    sandbox.kill()  # the runs in progress end now; their verdicts are dropped
                _done, running = wait(running, timeout=0.05)
            for future in pending:  # a run that finished as Ctrl+C arrived is whole: kept
                if future.done() and not future.cancelled() and future.result() is not None:
                    row_index, ex, _sub = jobs[futures[future]]
                    rows[row_index]["results"][ex] = future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        sys.setswitchinterval(switch)
        for sandbox in created:
            sandbox.close()
    return sorted(i for i in set(left) if jobs[i][1] not in rows[jobs[i][0]]["results"])


def _codes(rows, jobs) -> tuple[dict, dict]:
    """({exercise: {short name: code}} of the graded submissions, {short name: student})."""
    codes: dict[str, dict[str, str]] = {}
    who = {}
    for row_index, ex, submission in jobs:
        row = rows[row_index]
        if ex in row["results"] and "error" not in row["results"][ex] and isinstance(submission.code, str):
            codes.setdefault(ex, {})[row["shown"]] = submission.code
            who[row["shown"]] = row["student"]
    return codes, who


def _pesos(path: str | None, assignment: list[str]) -> dict | None:
    """The --pesos file: {exercise: {"peso": w, "criterios": {id: w}}} (TOML); None without one.
    ValueError (Portuguese) for anything an instructor could not have meant: an unknown exercise,
    key or criterion id (a typo would otherwise be ignored), weights that are all zero, or exercise
    shares given to some exercises of the assignment and not to others."""
    if path is None:
        return None
    import tomllib

    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise ValueError("arquivo não encontrado") from None
    except OSError as exc:
        raise ValueError(f"não consegui ler o arquivo ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"não é um TOML válido ({exc})") from None
    for ex, entry in data.items():
        if ex not in exercises.EXERCISE_IDS or not isinstance(entry, dict):
            raise ValueError(f"exercício desconhecido {ex!r}; os exercícios são: {', '.join(exercises.EXERCISE_IDS)}")
        unknown = [k for k in entry if k not in ("peso", "criterios")]
        if unknown:
            raise ValueError(f"em [{ex}], chave desconhecida {unknown[0]!r}; use peso e [{ex}.criterios]")
        criteria = entry.get("criterios", {})
        if not isinstance(criteria, dict):
            raise ValueError(f"[{ex}.criterios] precisa ser uma tabela de id = peso")
        known = exercises.criterion_ids(ex)
        wrong = [k for k in criteria if k not in known]
        if wrong:
            raise ValueError(f"critério desconhecido {wrong[0]!r} em {ex}; os critérios de {ex} são: {', '.join(known)}")
        values = [entry.get("peso", 1), *criteria.values()]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1000 for v in values):
            raise ValueError(f"os pesos de {ex} precisam ser números de 0 a 1000")
    shared = [ex for ex in assignment if "peso" in data.get(ex, {})]
    if shared and len(shared) < len(assignment):
        missing = [ex for ex in assignment if ex not in shared]
        raise ValueError("com peso num exercício, o peso de cada exercício é a parte dele na nota: dê peso a todos "
                         f"os exercícios da tarefa (falta: {', '.join(missing)})")
    if shared and not any(data[ex]["peso"] for ex in shared):
        raise ValueError("todos os exercícios têm peso 0: ninguém teria nota")
    for ex in assignment:
        per = {c: data.get(ex, {}).get("criterios", {}).get(c, 1) for c in exercises.criterion_ids(ex)}
        if not any(per.values()) and (not shared or data[ex]["peso"]):
            raise ValueError(f"todos os critérios de {ex} têm peso 0")
    return data


def _say_columns(class_roster) -> None:
    """Once, on stderr: which columns of the roster were read, and which were not."""
    read = ", ".join(f"{what} ({header})" for what, header in class_roster.recognised.items())
    kind = "planilha de notas do Moodle" if class_roster.worksheet else "lista da turma"
    line = f"{kind}: {report.plural(len(class_roster.people), 'pessoa', 'pessoas')}; colunas lidas: {read}"
    if class_roster.ignored:
        line += f"; colunas ignoradas: {', '.join(class_roster.ignored)}"
    sys.stderr.write(line + "\n")


def _scale(args, worksheet) -> str | None:
    """Settle --nota-max: the worksheet's "Nota máxima" (a different --nota-max refused), VPL's
    VPL_GRADEMAX for --format vpl, else 10. Returns the refusal, if any."""
    if args.format == "moodle-tarefa" and worksheet is None:
        return ("--format moodle-tarefa preenche a planilha de notas da tarefa: baixe-a no Moodle (Baixar planilha "
                "de notas) e passe-a em --turma")
    if worksheet is not None and worksheet.max_col is not None:
        cells = {r[worksheet.max_col].strip() for r in worksheet.rows if len(r) > worksheet.max_col and r[worksheet.max_col].strip()}
        tops = set()
        for c in cells:
            try:
                tops.add(float(c.replace(".", "").replace(",", ".") if "," in c else c))
            except ValueError:
                pass
        if len(tops) == 1:
            top = tops.pop()
            if args.nota_max is not None and args.nota_max != top:
                return (f"--nota-max {args.nota_max:g} difere da Nota máxima da planilha de notas ({top:g}): o Moodle "
                        "ignora, sem avisar, uma nota acima da máxima; use a escala da tarefa")
            if args.format == "moodle-tarefa" or args.nota_max is None:
                args.nota_max = top
    args.grade_min = 0.0
    if args.format == "vpl":
        for name, attr in (("VPL_GRADEMAX", "nota_max"), ("VPL_GRADEMIN", "grade_min")):
            value = os.environ.get(name, "").strip()
            if value and (attr != "nota_max" or args.nota_max is None):
                try:
                    setattr(args, attr, float(value.replace(",", ".")))
                except ValueError:
                    return f"{name}={value!r} não é um número"
    if args.nota_max is None:
        args.nota_max = 10.0
    if args.format == "vpl" and not args.grade_min < args.nota_max:
        return f"a nota mínima ({args.grade_min:g}) precisa ser menor que a máxima ({args.nota_max:g})"
    return None


def _say_left_out(class_report: dict, args) -> None:
    """What the Moodle file leaves out, and why, on stderr: students without a grade, and files that
    matched nobody on the roster (with what would match them)."""
    rows = class_report["students"]
    ungraded = [r for r in rows if not r["gradable"]]
    if ungraded:
        where = "sem linha no arquivo" if args.format == "moodle" else "com a nota vazia na planilha"
        sys.stderr.write(f"aviso: {report.plural(len(ungraded), 'aluno sem nota', 'alunos sem nota')} ({where}; "
                         "o motivo está em cada um):\n")
        for r in ungraded:
            sys.stderr.write(f"  {r['student'] or r['shown']}: {r['ungraded_reason']}\n")
    outside = [r for r in rows if r["files"] and r["roster"] not in (None, "na turma")]
    if class_report["report"]["roster"] is False:
        outside = [r for r in rows if r["gradable"] and not (r["email"] or r["id_number"])]
        if outside:
            sys.stderr.write(f"aviso: {report.plural(len(outside), 'aluno ficou', 'alunos ficaram')} fora do arquivo "
                             "do Moodle: sem e-mail nem matrícula no arquivo; passe a lista da turma em --turma\n")
    elif outside:
        sys.stderr.write(f"aviso: {report.plural(len(outside), 'entrega ficou', 'entregas ficaram')} fora do arquivo "
                         "do Moodle (não casaram com ninguém da turma):\n")
    for r in outside:
        files = ", ".join(f["shown"] for f in r["files"]) or r["student"] or ""
        if r["files"] and r["student"]:
            files += f" ({r['student']})"
        sys.stderr.write(f"  {files}: {r['roster'] or 'sem e-mail nem matrícula'}\n")
    if args.format == "moodle" and class_report["report"]["nota_max"] > 100:
        sys.stderr.write(f"aviso: --nota-max {class_report['report']['nota_max']:g} passa de 100, o máximo que o Moodle "
                         "aceita por padrão (gradepointmax): a importação seria recusada; crie o item de nota com "
                         "a nota máxima da tarefa\n")


def _exit_code(report_: dict) -> int:
    states = [row["status"] for row in report_["students"] if row["files"] or row["unread"]]
    if not any(s in (classreport.APPROVED, classreport.FAILED, classreport.INCOMPLETE) for s in states):
        return EXIT_NOTHING_GRADED
    if any(s in (classreport.ERROR, classreport.LIMIT) for s in states):
        return EXIT_SOME_UNGRADED
    return EXIT_OK if all(s == classreport.APPROVED for s in states) else EXIT_FAILED


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = options.parse(argv)
    try:
        class_roster = roster.read_roster(args.turma) if args.turma else None
    except roster.RosterError as exc:
        sys.stderr.write(f"erro: {exc}\n")
        return EXIT_INPUT
    people = class_roster.people if class_roster else None
    worksheet = class_roster.worksheet if class_roster else None
    if class_roster:
        _say_columns(class_roster)
    try:
        pesos = _pesos(args.pesos, options.assignment(args))
    except ValueError as exc:
        sys.stderr.write(f"erro: arquivo de pesos {args.pesos}: {exc}\n")
        return EXIT_INPUT
    problem = _scale(args, worksheet)
    if problem:
        sys.stderr.write(f"erro: {problem}\n")
        return EXIT_INPUT
    stop = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        probe = None
        if args.isolamento != "reduzido":
            # bubblewrap is tried (a sandbox started and stopped) while the files are read.
            probe = threading.Thread(target=bwrap_problem, daemon=True)
            probe.start()
        entries, ignored = collect_all(args.files, read_zips=args.zip)
        rows, jobs = prepare(entries, args.exercise)
        _precompile()
        if probe is not None:
            probe.join()
        isolated = _isolation(args.isolamento)
        if isolated is None:
            return EXIT_INPUT
        shapes: dict = {}
        left = (_grade_all(rows, jobs, args, isolated, stop, shapes) if jobs and not stop.is_set()
                else list(range(len(jobs))))
        interrupted = stop.is_set()
        order = {ex: i for i, ex in enumerate(exercises.EXERCISE_IDS)}
        for row in rows:  # the lesson's order, whichever run finished first
            row["results"] = dict(sorted(row["results"].items(), key=lambda item: order.get(item[0], len(order))))
        if not interrupted:
            left = []
        pending_files = list(dict.fromkeys(rows[jobs[i][0]]["file"] for i in left))
        codes, who = _codes(rows, jobs)
        # Ctrl+C: every file stays in the report; one that was not graded is "não avaliado" (no grade,
        # the reason said), so its student is never a zero or a "não entregou".
        for i in left:
            row_index, ex, _sub = jobs[i]
            rows[row_index]["results"].setdefault(ex, report.normalise(
                {"file": rows[row_index]["file"], "exercise": ex, "passed": False, "criteria": [],
                 "error": classreport.INTERRUPTED, "limit": True}))
        assignment = options.assignment(args)
        meta = metadata.describe(isolated, interrupted, assignment, pending=pending_files,
                                 fences=planned_fences(isolated))
        if args.format == "vpl":
            meta["grade_min"] = args.grade_min
        copies = possible_copies({ex: c for ex, c in codes.items() if ex in assignment}, who, shapes)
        class_report = classreport.build(rows, assignment, args.exercise, meta, copies, people=people,
                                         ignored=ignored, pesos=pesos, nota_max=args.nota_max, worksheet=worksheet,
                                         code_only=args.format == "vpl")
        text = formats.render(args.format, class_report)
        if args.format == "moodle-tarefa" and worksheet.encoding != "utf-8":
            sys.stdout.flush()
            sys.stdout.buffer.write(text.encode(worksheet.encoding, errors="replace"))
        else:
            sys.stdout.write(text)
        sys.stdout.flush()
        if args.format in ("moodle", "moodle-tarefa"):
            _say_left_out(class_report, args)
        if interrupted:
            left = report.plural(len(pending_files), "arquivo ficou", "arquivos ficaram")
            sys.stderr.write(f"\ninterrompido: {left} sem correção.\n")
            return EXIT_INTERRUPTED
        return _exit_code(class_report)
    finally:
        signal.signal(signal.SIGINT, previous)
