"""The instructor's grading day, end to end through the CLI (issue 18): a folder in, one report per
class out, every student named and scored, the class summarised, nothing a bad option or Ctrl+C spoils."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import ROOT

CORPUS = ROOT / "tests" / "corpus"
SOLUTION = ROOT / "exercises" / "nivel-2" / "solution.py"
STARTER = ROOT / "exercises" / "nivel-2" / "starter.py"
ANSWERS = json.loads((CORPUS / "respostas" / "tudo_certo.json").read_text(encoding="utf-8"))
LOOP = "def run_agent(task, tools, call_model, execute_tool):\n    while True:\n        pass\n"


def cli(*args, timeout=300, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "graders", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT)})


def export(student=None, exercises=None, **extra) -> str:
    doc = {"format": "checkpoints-licao-2/respostas", "version": 2,
           "exercises": exercises if exercises is not None else ANSWERS["exercises"], **extra}
    if student is not None:
        doc["student"] = student
    return json.dumps(doc, ensure_ascii=False)


def renamed(source: str) -> str:
    """The same program with other names: what a copying student hands in."""
    return source.replace("save_checkpoint", "gravar").replace("state", "estado")


@pytest.fixture(scope="module")
def turma(tmp_path_factory):
    """A class folder as instructors get it: subfolders, upper-case .PY, exports, hidden files and caches."""
    root = tmp_path_factory.mktemp("turma")
    (root / "nivel-2").mkdir()
    (root / "nivel-2" / "BEATRIZ_COSTA.PY").write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    (root / "nivel-2" / "caio.py").write_text(STARTER.read_text(encoding="utf-8"), encoding="utf-8")
    (root / "nivel-2" / "davi_copia.py").write_text(renamed(SOLUTION.read_text(encoding="utf-8")), encoding="utf-8")
    (root / "exportados").mkdir()
    (root / "exportados" / "respostas-licao-2-ana.json").write_text(export("  Ana   Júlia "), encoding="utf-8")
    (root / "exportados" / "respostas-licao-2.json").write_text(export(), encoding="utf-8")
    (root / ".escondido.py").write_text(LOOP, encoding="utf-8")
    (root / "nivel-2" / "__pycache__").mkdir()
    (root / "nivel-2" / "__pycache__" / "caio.cpython-311.py").write_text(LOOP, encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "x.json").write_text("{}", encoding="utf-8")
    (root / "leia-me.txt").write_text("não é uma entrega", encoding="utf-8")
    return root


def submissions(run) -> list[dict]:
    return json.loads(run.stdout)["submissions"]


# --- 1. folders and exports in, one class out ----------------------------------------------------


def test_a_folder_is_graded_recursively_in_a_stable_order(turma):
    run = cli("nivel-2", turma, "--format", "json")
    assert run.returncode == 1, run.stderr  # caio (the starter) fails
    data = submissions(run)
    shown = [s["shown"] for s in data]
    assert shown == ["exportados/respostas-licao-2-ana.json", "exportados/respostas-licao-2.json",
                     "nivel-2/BEATRIZ_COSTA.PY", "nivel-2/caio.py", "nivel-2/davi_copia.py"]
    assert [s["file"] for s in data] == [str(turma / name) for name in shown]
    # Who is who: the export's name (trimmed), the file name for a .py, nothing when the export has none.
    assert [s["student"] for s in data] == ["Ana Júlia", None, "BEATRIZ_COSTA", "caio", "davi_copia"]
    assert [s["kind"] for s in data] == ["export", "export", "py", "py", "py"]
    # The same order again: nothing depends on the file system's listing order.
    assert [s["shown"] for s in submissions(cli("nivel-2", turma, "--format", "json"))] == shown


def test_todos_grades_every_exercise_of_each_export_in_one_report(turma):
    run = cli("todos", turma, "--format", "json")
    assert run.returncode == 1, run.stderr
    doc = json.loads(run.stdout)
    rows = {s["shown"]: s for s in doc["submissions"]}
    ana = rows["exportados/respostas-licao-2-ana.json"]
    assert list(ana["exercises"]) == ["quiz-sobrescrita", "nivel-1", "nivel-2"]
    assert ana["student"] == "Ana Júlia" and ana["status"] == "aprovado"
    assert ana["score"] == {"met": 17, "total": 17, "fraction": 1.0, "grade": 10.0, "exact": "10/1"}
    # Every exercise object names its student, file and kind, as a one-exercise submission does.
    assert {(e["student"], e["shown"], e["kind"]) for e in ana["exercises"].values()} == {
        ("Ana Júlia", "exportados/respostas-licao-2-ana.json", "export")}
    # A .py is graded for the exercise its folder names.
    assert [ex for ex, e in rows["nivel-2/caio.py"]["exercises"].items() if e["state"] == "avaliado"] == ["nivel-2"]
    # The whole assignment counts: 2 met of the lesson's 17 criteria, the missing exercises "não entregue".
    caio = rows["nivel-2/caio.py"]
    assert caio["score"] == {"met": 2, "total": 17, "fraction": 0.1176, "grade": 1.18, "exact": "20/17"}
    assert caio["exercises"]["nivel-1"]["state"] == "não entregue" and caio["exercises"]["nivel-1"]["timeline"] is None
    assert doc["report"]["exercises"] == ["quiz-sobrescrita", "nivel-1", "nivel-2"]
    # CSV: one row per file, one group of columns per exercise.
    table = list(csv.DictReader(io.StringIO(cli("todos", turma, "--format", "csv").stdout)))
    assert len(table) == 5
    first = next(r for r in table if r["student"] == "Ana Júlia")
    assert first["nivel-1:passed"] == "sim" and first["quiz-sobrescrita:resposta"] == "ok" and first["met"] == "17"
    assert next(r for r in table if r["student"] == "caio")["nivel-1:passed"] == ""


def test_todos_names_what_a_stray_py_lacks(tmp_path):
    (tmp_path / "solto.py").write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    run = cli("todos", tmp_path, "--format", "json")
    assert run.returncode == 2  # nothing graded
    (row,) = submissions(run)
    assert "precisa estar numa pasta" in row["error"] and row["student"] == "solto"


# --- 2 and 3. who is who, scores, the class summary, every format --------------------------------


def test_text_report_names_scores_and_summarises_the_class(turma):
    run = cli("nivel-2", turma)
    text = run.stdout
    # Paths as every format shows them: relative to the folder given.
    assert "exportados/respostas-licao-2-ana.json (aluno: Ana Júlia): APROVADO (6 de 6 critérios; nota 10,0)" in text
    assert "\nnivel-2/caio.py: REPROVADO (2 de 6 critérios; nota 3,3)" in text  # the file name says who
    assert "Resumo da turma:" in text
    assert "5 alunos (5 arquivos lidos): 4 aprovados, 1 reprovado, 0 com erro" in text
    # .py files (4 code criteria) and exports (all 6) are counted apart.
    assert "só código (.py, critérios de código): 2 de 3 passaram em todos" in text
    assert "respostas exportadas (.json, todos os critérios): 2 de 2 passaram em todos" in text
    assert "Correção um: a gravação [escrita-atomica]: 4 de 5 (80%)" in text
    assert re.search(r"^Gerado em: \d{4}-\d\d-\d\dT", text, re.M)
    assert "Isolamento usado: bubblewrap" in text and re.search(r"^Versão do corretor: 0\.1\.0\+[0-9a-f]{12}$", text, re.M)


def test_json_report_carries_summary_scores_metadata_and_copies(turma):
    doc = json.loads(cli("nivel-2", turma, "--format", "json", "--isolamento", "reduzido").stdout)
    summary = doc["summary"]
    assert (summary["files"], summary["approved"], summary["failed"], summary["errors"]) == (5, 4, 1, 0)
    assert summary["passed_by_kind"] == {"py": {"total": 3, "passed": 2}, "export": {"total": 2, "passed": 2}}
    rates = summary["exercises"]["nivel-2"]["criteria"]
    assert rates["escrita-atomica"] == {"title": "Correção um: a gravação", "passed": 4, "judged": 5, "rate": 0.8}
    assert rates["diagnostico-escrita"]["judged"] == 2  # only exports answer the questions
    caio = next(s for s in doc["submissions"] if s["student"] == "caio")
    assert caio["score"] == {"met": 2, "total": 6, "fraction": 0.3333, "grade": 3.33, "exact": "10/3"}
    # The isolation actually used, the grader's version, when.
    assert doc["report"]["isolation"] == "reduzido" and doc["report"]["interrupted"] is False
    assert re.fullmatch(r"0\.1\.0\+[0-9a-f]{12}", doc["report"]["grader_version"])
    assert doc["report"]["generated_at"][:2] == "20"
    # Possible copies: the renamed solution is the same program as BEATRIZ's (and the exports' code).
    groups = doc["possible_copies"]
    together = [set(m["file"] for m in g["members"]) for g in groups]
    assert any({"nivel-2/BEATRIZ_COSTA.PY", "nivel-2/davi_copia.py"} <= members for members in together), groups
    # The starter is nobody's copy: only flagged as handed in unchanged (issue 46).
    assert not any("nivel-2/caio.py" in set(m["file"] for m in g["members"]) for g in groups
                   if g["kind"] != "igual ao código inicial")


def test_csv_keeps_its_columns_and_adds_student_and_score_at_the_end(turma):
    rows = list(csv.reader(io.StringIO(cli("nivel-2", turma, "--format", "csv").stdout)))
    head = rows[0]
    assert head[:3] == ["file", "exercise", "passed"]
    at = head.index("student")
    assert head[at:] == ["student", "met", "graded", "email", "id_number", "roster", "status", "score_met",
                         "score_total", "grade", "inspection", "not_graded", "identity_note"]
    caio = next(r for r in rows if r[0].endswith("caio.py"))
    assert caio[at:at + 3] == ["caio", "2", "4"] and caio[-6:] == ["2", "6", "3.33", "", "", ""]


def test_planilha_opens_in_a_portuguese_spreadsheet(tmp_path):
    words = "Abre com \"w\";\nsegunda linha = fórmula?\r\nterceira"
    exercises = json.loads(json.dumps(ANSWERS["exercises"]))
    exercises["nivel-2"]["texts"] = {"primeira-falha": words}
    (tmp_path / "ana.json").write_text(export("Ana Júlia", exercises), encoding="utf-8")
    (tmp_path / "caio.py").write_text(STARTER.read_text(encoding="utf-8"), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "graders", "nivel-2", str(tmp_path), "--format", "planilha"],
                         capture_output=True, timeout=300, cwd=ROOT)
    raw = run.stdout
    assert raw.startswith(b"\xef\xbb\xbf"), raw[:10]  # UTF-8 with a BOM
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline=""), delimiter=";"))
    header = rows[0]
    assert header[:4] == ["Arquivo", "Aluno", "Tipo", "Situação"]
    assert "Correção um: a gravação" in header and "Nota (0 a 10)" in header and "Pontos (total)" in header
    table = {r[0]: dict(zip(header, r)) for r in rows[1:3]}
    ana, caio = table["ana.json"], table["caio.py"]
    assert ana["Aluno"] == "Ana Júlia" and ana["Situação"] == "aprovado" and ana["Nota (0 a 10)"] == "10,0"
    assert caio["Nota (0 a 10)"] == "3,3" and caio["Correção um: a gravação"] == "falhou" and caio["Tipo"] == "código (.py)"
    # The student's line breaks are kept inside the quoted cell, never written as "\n".
    assert ana["Resposta escrita: primeira-falha"] == words.replace("\r\n", "\n")
    # The class summary and the report's facts come after the table, past a blank row.
    rest = [r[0] for r in rows[3:] if r]
    assert rows[3] == [] and rest[0] == "Resumo da turma"
    assert any(line.startswith("Versão do corretor:") for line in rest)


# --- 5. options that cannot spoil a run ----------------------------------------------------------


def _shm() -> set[str]:
    return {n for n in os.listdir("/dev/shm") if n.startswith("correcao-")} if os.path.isdir("/dev/shm") else set()


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "1e308", "0", "dez", "-inf", "3601"])
def test_bad_timeouts_are_refused_in_portuguese_and_leave_nothing(value):
    before = _shm()
    run = cli("nivel-2", SOLUTION, "--timeout", value)
    assert run.returncode == 2
    assert run.stdout == ""
    assert "erro: valor inválido para --timeout" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and "invalid" not in run.stderr
    assert _shm() <= before


@pytest.mark.parametrize("args, says", [
    (["nivel-2", SOLUTION, "--timeout"], "a opção --timeout precisa de um valor"),
    (["nivel-2", SOLUTION, "--formato", "csv"], "opções desconhecidas: --formato"),
    (["nivel-2", SOLUTION, "--format", "xml"], "valor inválido para --format: 'xml' (escolha entre"),
    (["nivel-2", SOLUTION, "--jobs", "0"], "valor inválido para --jobs"),
    (["nivel-2", SOLUTION, "--memory", "2.5"], "valor inválido para --memory"),
    (["nivel-2", SOLUTION, "--max-ops", "-5"], "valor inválido para --max-ops"),
    (["nivel-2"], "faltam os argumentos: ARQUIVO"),
    (["nivel-9", SOLUTION], "exercício desconhecido 'nivel-9'"),
])
def test_usage_errors_speak_portuguese(args, says):
    run = cli(*args)
    assert run.returncode == 2
    assert says in run.stderr, run.stderr
    assert run.stderr.startswith("uso: ")
    for english in ("expected", "invalid", "unrecognized", "argument", "choose from", "required", "usage"):
        assert not re.search(rf"\b{english}\b", run.stderr), run.stderr


def test_every_option_is_in_the_instructors_guide():
    from graders.cli.options import build_parser

    guide = (ROOT / "PROFESSORES.md").read_text(encoding="utf-8")
    for action in build_parser()._actions:
        for option in action.option_strings:
            if option.startswith("--"):
                assert f"`{option}" in guide, f"{option} is not documented in PROFESSORES.md"
    for code in ("**0**", "**1**", "**2**", "**3**", "**130**"):
        assert code in guide


def test_a_sandbox_that_fails_to_start_leaves_nothing(monkeypatch):
    from graders.sandbox import sandbox as sandbox_module

    before = _shm()
    monkeypatch.setattr(sandbox_module, "python_executable", lambda: "/nao/existe/python3")
    box = sandbox_module.Sandbox(isolated=False)
    trace = box.run("print(1)", "x.py", {}, timeout=2)
    assert trace.end == "broken" and "não iniciou" in trace.output
    assert box.process is None and box.base is None
    assert _shm() <= before


def test_the_time_limit_is_the_one_given(tmp_path):
    slow = tmp_path / "lento.py"
    slow.write_text("import time\ntime.sleep(11)\n" + SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    loop = tmp_path / "laco.py"
    loop.write_text(LOOP, encoding="utf-8")
    start = time.monotonic()
    run = cli("nivel-2", loop, "--timeout", "2", "--format", "json")
    assert time.monotonic() - start < 30
    (looped,) = submissions(run)
    assert any("tempo esgotado" in c["message"] for c in looped["criteria"])
    # Past the old fixed 10 s: a slow but correct submission passes when the instructor allows it.
    (passed,) = submissions(cli("nivel-2", slow, "--timeout", "20", "--format", "json"))
    assert passed["passed"] is True, passed


# Each grader limit: what exceeds a low setting of it, what the message says, and a setting that lets
# the same file be graded (the default, or a higher one).
LIMITS = {
    "--max-ops": ("for _ in range(400):\n    open('rascunho.txt', 'w').close()\n",
                  "300", "o código fez mais de 300 chamadas de arquivo", []),
    "--max-escrita": ("with open('rascunho.bin', 'wb') as f:\n    for _ in range(3):\n        f.write(bytes(1 << 20))\n",
                      "2", "o código gravou mais de 2 MB", []),
    "--max-saida": ("print('x' * (3 << 20))\n", "2", "o código imprimiu mais de 2 MB", ["--max-saida", "8"]),
}


@pytest.mark.parametrize("option", LIMITS)
def test_grader_limits_are_named_and_never_scored(tmp_path, option):
    extra, low, says, enough = LIMITS[option]
    busy = tmp_path / "passa_do_limite.py"
    busy.write_text(SOLUTION.read_text(encoding="utf-8") + "\n" + extra, encoding="utf-8")
    run = cli("nivel-2", busy, SOLUTION, option, low, "--format", "json")
    assert run.returncode == 3, run.stderr  # some file not graded, the rest graded
    stopped, fine = submissions(run)
    assert stopped["limit"] is True and stopped["passed"] is False and stopped["score"]["grade"] is None, stopped
    assert stopped["error"].startswith(f"limite do corretor: {says}"), stopped["error"]
    assert option in stopped["error"] and fine["passed"] is True
    text = cli("nivel-2", busy, option, low).stdout
    assert "NÃO AVALIADO — limite do corretor" in text and "1 não avaliado (sem nota: veja o motivo de cada um)" in text
    # With limits that let it through, the same file is graded, and passes.
    (graded,) = submissions(cli("nivel-2", busy, *enough, "--format", "json"))
    assert graded["passed"] is True, graded


# --- 6. exit codes and Ctrl+C ---------------------------------------------------------------------


def test_exit_codes_tell_some_unreadable_from_nothing_graded(tmp_path):
    (tmp_path / "quebrado.json").write_text("{", encoding="utf-8")
    assert cli("nivel-2", tmp_path / "quebrado.json").returncode == 2
    assert cli("nivel-2", tmp_path / "quebrado.json", SOLUTION).returncode == 3
    assert cli("nivel-2", SOLUTION).returncode == 0
    empty = tmp_path / "vazia"
    empty.mkdir()
    run = cli("nivel-2", empty)
    assert run.returncode == 2 and "a pasta não tem nenhum arquivo .py ou .json" in run.stdout


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = open(f"/proc/{name}/stat", "rb").read().decode("utf-8", "replace")
                children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(name))
            except (OSError, ValueError, IndexError):
                pass
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat", "rb").read().decode("utf-8", "replace").rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.parametrize("isolation", ["auto", "reduzido"])
def test_ctrl_c_stops_within_a_second_and_reports_what_was_graded(tmp_path, isolation):
    files = [tmp_path / "a_solucao.py", tmp_path / "b_solucao.py"]
    for f in files:
        f.write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    for n in range(4):
        loop = tmp_path / f"c_laco{n}.py"
        loop.write_text(LOOP, encoding="utf-8")
        files.append(loop)
    proc = subprocess.Popen([sys.executable, "-m", "graders", "nivel-2", *map(str, files), "--jobs", "2",
                             "--timeout", "60", "--progress", "--format", "json", "--isolamento", isolation],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    try:
        seen = b""
        deadline = time.monotonic() + 120
        os.set_blocking(proc.stderr.fileno(), False)
        while b"2/6" not in seen and time.monotonic() < deadline:
            seen += proc.stderr.read() or b""
            time.sleep(0.05)
        assert b"2/6" in seen, seen
        time.sleep(1.5)  # the loops are running now
        running = _descendants(proc.pid)
        assert running, "no sandbox running before Ctrl+C"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        os.set_blocking(proc.stderr.fileno(), True)
        # Read while waiting: the report of two solutions is ~60 KB, near a pipe's 64 KB, and the CLI
        # would block on its stdout while the test waited for it to exit.
        out, rest = proc.communicate(timeout=10)
        code = proc.returncode
        took = time.monotonic() - sent
        err = seen + rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 130, err
    assert took < 3.0, f"{took:.2f} s from Ctrl+C to exit"
    time.sleep(0.2)
    left = [pid for pid in running if _alive(pid)]
    assert left == [], f"processes left running after Ctrl+C: {left}"
    from report_schema import check

    doc = check(json.loads(out))  # an interrupted report is a whole, valid one
    assert doc["report"]["interrupted"] is True
    # Every file stays in the report (issue 46): the graded ones with their grade, the rest without one.
    rows = {s["file"]: s for s in doc["submissions"]}
    assert list(rows) == [str(f) for f in files]
    assert all(rows[str(f)]["passed"] and rows[str(f)]["gradable"] for f in files[:2])
    for f in files[2:]:
        row = rows[str(f)]
        assert row["gradable"] is False and row["score"]["grade"] is None and row["status"] == "não avaliado"
        assert "interrompida (Ctrl+C)" in row["ungraded_reason"]
    assert doc["report"]["not_graded"] == [str(f) for f in files[2:]]
    assert b"Traceback" not in err and b"KeyboardInterrupt" not in err
    assert "interrompido" in err.decode("utf-8")


def _sandbox_folder(before: set[str], timeout: float = 60) -> str:
    """The first sandbox folder that appears, once it is locked as in use."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for name in sorted(_shm() - before):
            if os.path.exists(os.path.join("/dev/shm", name, ".em-uso")):
                return name
        time.sleep(0.05)
    raise AssertionError("no sandbox folder appeared")


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="the sandboxes live in /dev/shm on Linux")
@pytest.mark.parametrize("isolation", ["auto", "reduzido"])
def test_a_cli_killed_outright_leaves_no_process_and_the_next_one_sweeps_its_folder(tmp_path, isolation):
    loop = tmp_path / "laco.py"
    loop.write_text(LOOP, encoding="utf-8")
    command = [sys.executable, "-m", "graders", "nivel-2", str(loop), "--timeout", "60", "--isolamento", isolation]
    killed = live = None
    try:
        before = _shm()
        killed = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        abandoned = _sandbox_folder(before)
        deadline = time.monotonic() + 30
        while len(_descendants(killed.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # the loop is running now
        running = _descendants(killed.pid)
        assert running, "no sandbox running"
        killed.kill()  # SIGKILL: the CLI cleans up nothing
        killed.wait()
        deadline = time.monotonic() + 5
        while any(_alive(pid) for pid in running) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [pid for pid in running if _alive(pid)]
        assert left == [], f"processes of a killed CLI still running: {left}"
        assert abandoned in _shm()

        before = _shm()
        live = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        in_use = _sandbox_folder(before)
        run = cli("nivel-2", SOLUTION, "--isolamento", isolation)
        assert run.returncode == 0, run.stderr
        assert abandoned not in _shm(), "the next CLI left the killed one's folder in /dev/shm"
        # Reduced mode's temp folder sits in the system temp folder, named as the sandbox's: swept too.
        assert not os.path.exists(os.path.join(tempfile.gettempdir(), abandoned))
        assert in_use in _shm(), "the next CLI swept a folder still in use"
        assert live.poll() is None, "the CLI still grading was disturbed"
        live.send_signal(signal.SIGINT)
        assert live.wait(timeout=10) == 130
        assert in_use not in _shm()
    finally:
        for proc in (killed, live):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()


def test_the_sweep_takes_only_our_abandoned_folders(tmp_path):
    from graders.sandbox import sandbox as sandbox_module

    def folder(name, lock="free"):
        path = tmp_path / name
        (path / "aluno" / "projeto").mkdir(parents=True)
        (path / "aluno" / "projeto" / "estado.json").write_text("{}")
        if lock == "held":
            return path, sandbox_module._claim(str(path))
        if lock == "free":
            os.close(sandbox_module._claim(str(path)))
        return path, None

    abandoned, _ = folder("correcao-morta")
    (abandoned / "aluno").chmod(0o500)  # a run may leave folders closed to us
    in_use, held = folder("correcao-viva", "held")
    unlocked, _ = folder("correcao-sem-trava", None)  # still being made
    other, _ = folder("outra-coisa")
    (tmp_path / "correcao-arquivo").write_text("não é uma pasta")
    (tmp_path / "correcao-atalho").symlink_to(abandoned)
    try:
        removed = sandbox_module.sweep_abandoned(str(tmp_path))
    finally:
        os.close(held)
    assert removed == [str(abandoned)]
    assert not abandoned.exists()
    assert all(p.exists() for p in (in_use, unlocked, other, tmp_path / "correcao-arquivo"))
    assert (tmp_path / "correcao-atalho").is_symlink()
    assert sandbox_module.sweep_abandoned(str(tmp_path / "nao-existe")) == []


def test_the_sweep_takes_reduced_modes_temp_folders_with_their_sandbox(tmp_path, monkeypatch):
    """Reduced mode keeps its temp folder in the system temp folder (another file system, as /tmp is
    under bubblewrap), named as its sandbox's folder: an abandoned one goes with it, or alone when an
    older CLI removed the sandbox folder; a live sandbox's stays."""
    from graders.sandbox import sandbox as sandbox_module

    shm, system = tmp_path / "shm", tmp_path / "sistema"
    shm.mkdir()
    system.mkdir()
    monkeypatch.setattr(sandbox_module, "_grading_tmp", lambda: str(shm))
    monkeypatch.setattr(tempfile, "tempdir", str(system))
    for name in ("correcao-morta", "correcao-viva"):
        (shm / name).mkdir()
        (system / name / "tmp").mkdir(parents=True)
    os.close(sandbox_module._claim(str(shm / "correcao-morta")))
    held = sandbox_module._claim(str(shm / "correcao-viva"))
    (system / "correcao-orfa" / "tmp").mkdir(parents=True)
    (system / "outra-coisa").mkdir()
    try:
        removed = sandbox_module.sweep_abandoned()
    finally:
        os.close(held)
    assert sorted(removed) == sorted([str(system / "correcao-orfa"), str(shm / "correcao-morta")])
    assert sorted(os.listdir(system)) == ["correcao-viva", "outra-coisa"]
    assert os.listdir(shm) == ["correcao-viva"]


# --- the student's name in the export --------------------------------------------------------------


def test_the_exports_student_is_read_trimmed_cut_and_typed():
    from graders.submission import SubmissionError, from_export

    assert from_export(export("  Ana \n Júlia  "), "nivel-2").student == "Ana Júlia"
    assert from_export(export("x" * 500), "nivel-2").student == "x" * 120
    assert from_export(export(), "nivel-2").student is None
    assert from_export(export("   "), "nivel-2").student is None
    assert from_export(export(exercises={}, student="Bia"), "nivel-1").student == "Bia"  # absent exercise too
    for bad in (42, ["Ana"], {"nome": "Ana"}, True):
        with pytest.raises(SubmissionError, match="o campo student \\(nome do aluno\\) deveria ser texto"):
            from_export(export(bad), "nivel-2")


# --- 4. the HTML report, in Chromium ---------------------------------------------------------------

# Every word of these elements on one line: no "ponto-/a", no "Corre-/ção".
SPLIT_WORDS = """selector => {
  const split = [];
  for (const element of document.querySelectorAll(selector)) {
    if (!element.getClientRects().length) continue;
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /\\S+/g;
      for (let m = re.exec(node.data); m; m = re.exec(node.data)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) split.push(m[0]);
      }
    }
  }
  return split;
}"""


@pytest.fixture(scope="module")
def html_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("turma_html")
    (folder / "nivel-2").mkdir()
    (folder / "nivel-2" / "caio.py").write_text(STARTER.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "nivel-2" / "bia.py").write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    exercises = json.loads(json.dumps(ANSWERS["exercises"]))
    exercises["nivel-2"]["texts"] = {"primeira-falha": "Abre com \"w\" e escreve no lugar.\nSegunda linha."}
    (folder / "andre.json").write_text(export("André Luís", exercises), encoding="utf-8")
    (folder / "sem-nome.json").write_text(export(exercises={"nivel-2": {"code": STARTER.read_text(encoding="utf-8"),
                                                                        "answers": {"falha-escrita": "dumps"}}}),
                                         encoding="utf-8")
    run = cli("todos", folder, "--format", "html")
    assert run.returncode == 1, run.stderr
    path = folder / "relatorio.html"
    path.write_text(run.stdout, encoding="utf-8")
    return path


@pytest.mark.browser
def test_html_report_in_chromium(html_report, browser):
    from test_browser_a11y import axe_violations

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(html_report.as_uri())
    assert page.locator("#metadados").get_attribute("data-isolation") == "estrito"
    # A name opens its details.
    caio_row = page.locator("tbody tr[data-nome*='caio']")
    details_id = caio_row.get_attribute("data-details")
    assert page.locator(f"#{details_id}").evaluate("d => d.open") is False
    caio_row.get_by_role("link").click()
    assert page.locator(f"#{details_id}").evaluate("d => d.open") is True
    # One crash numbering: the timeline starts at the crash the first message cites, and each
    # "Queda n de N" in a message selects that very mark.
    details = page.locator(f"#{details_id}")
    cited = details.locator("button.queda").first
    first_text = cited.inner_text()
    assert re.fullmatch(r"Queda \d+ de \d+", first_text)
    selected = details.locator(".crash-timeline__mark[aria-checked='true']")
    assert selected.get_attribute("aria-label").startswith(first_text + ",")
    other = details.locator("button.queda").nth(1)
    other_text = other.inner_text()
    assert other_text != first_text
    other.click()
    assert selected.get_attribute("aria-label").startswith(other_text + ",")
    # Criterion titles, the id in a tooltip; Markdown code rendered; written answers under the student.
    header = page.locator("thead button[title='id: escrita-atomica']").first
    assert "Correção um: a gravação" in header.inner_text()
    page.locator("tbody tr[data-nome*='André']").get_by_role("link").click()
    andre = page.locator("details.submission", has_text="André Luís")
    assert andre.evaluate("d => d.open") is True
    assert andre.locator("blockquote.escrita").first.inner_text() == "Abre com \"w\" e escreve no lugar.\nSegunda linha."
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    assert page.locator(".message code").count() > 0
    assert not any("`" in t for t in page.locator(".message").all_inner_texts())
    assert not any("`" in t for t in page.locator(".bars li, thead th").all_inner_texts())  # titles too
    assert page.locator(".bars li code", has_text="save_checkpoint").count() == 1
    # Filter by name, accents ignored; the details below follow the table.
    page.fill("#filtro", "andre")
    assert page.locator("#contagem").inner_text() == "1 de 4 submissões na tabela"
    assert page.locator("details.submission:not([hidden])").count() == 1
    assert page.locator("details.submission:not([hidden])").get_attribute("id") == \
        page.locator("tbody tr[data-file]:not([hidden])").get_attribute("data-details")
    page.fill("#filtro", "")
    # Sort arrows.
    button = page.get_by_role("button", name="nota", exact=True)
    assert button.locator(".seta").inner_text() == "↕"
    scores = "() => [...document.querySelectorAll('tbody tr[data-pontos]')].map(r => parseFloat(r.dataset.pontos))"
    button.click()
    assert button.locator(".seta").inner_text() == "▲"
    assert page.locator("th[aria-sort='ascending']").count() == 1
    ascending = page.evaluate(scores)
    assert ascending == sorted(ascending) and len(set(ascending)) >= 3, ascending  # as numbers, not as text
    button.click()
    assert button.locator(".seta").inner_text() == "▼"
    assert page.evaluate(scores) == sorted(ascending, reverse=True)
    split = page.evaluate(SPLIT_WORDS, ".bars li > span:first-child, thead th, td.nome")
    assert split == [], split
    serious = [v for v in axe_violations(page) if v["impact"] in ("serious", "critical")]
    assert serious == [], serious
    # At 390 px: each student a card, the name the card's full width, nothing wider than the screen.
    page.set_viewport_size({"width": 390, "height": 844})
    width = page.locator("td.nome").first.evaluate("e => e.getBoundingClientRect().width")
    assert width > 300, width
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate(SPLIT_WORDS, ".bars li > span:first-child, td.nome") == []
    serious = [v for v in axe_violations(page) if v["impact"] in ("serious", "critical")]
    assert serious == [], serious
    assert errors == []
    context.close()


def test_folder_collection_is_natural_case_blind_and_skips_what_is_not_a_submission(tmp_path):
    from graders.cli.collect import collect

    for name in ("aluno10.py", "aluno2.py", "Aluno1.PY", ".oculto.py", "notas.txt", "z.JSON"):
        (tmp_path / name).write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "aluno2.cpython-311.py").write_text("", encoding="utf-8")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config.json").write_text("{}", encoding="utf-8")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "a.py").write_text("", encoding="utf-8")
    (tmp_path / "laco").symlink_to(tmp_path, target_is_directory=True)  # never followed: no cycle
    entries = collect([str(tmp_path), str(tmp_path / "aluno2.py")])
    assert [e.shown for e in entries] == ["Aluno1.PY", "aluno2.py", "aluno10.py", "b/a.py", "z.JSON",
                                          str(tmp_path / "aluno2.py")]
    assert all(not e.empty for e in entries)
    (tmp_path / "vazia").mkdir()
    (empty,) = collect([str(tmp_path / "vazia")])
    assert empty.empty
