"""The instructors' CLI: its output formats, exit codes, and the isolation of each submission."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

CORPUS = ROOT / "tests" / "corpus"
SOLUTION = ROOT / "exercises" / "nivel-2" / "solution.py"
STARTER = ROOT / "exercises" / "nivel-2" / "starter.py"


def cli(*args, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "graders", *map(str, args)],
        capture_output=True, text=True, timeout=timeout, cwd=ROOT,
    )


def submissions(run) -> list[dict]:
    """The per-file results of a `--format json` report (its "submissions" list)."""
    return json.loads(run.stdout)["submissions"]


def test_all_passing_exits_0_and_json_follows_the_contract():
    run = cli("nivel-2", SOLUTION, CORPUS / "nivel-2" / "ok_mkstemp_dir.py", "--format", "json")
    assert run.returncode == 0, run.stderr
    results = submissions(run)
    assert [r["file"] for r in results] == [str(SOLUTION), str(CORPUS / "nivel-2" / "ok_mkstemp_dir.py")]
    for r in results:
        assert r["exercise"] == "nivel-2" and r["passed"] is True
        # Every criterion of the exercise: a .py answers the code ones; the questions are only in an export.
        graded = [c["id"] for c in r["criteria"] if c["state"] in ("ok", "falhou")]
        assert graded == ["escrita-atomica", "ponto-a", "seis-campos", "executavel"]
        assert [c["state"] for c in r["criteria"][:2]] == ["só no arquivo exportado"] * 2
        assert all(set(c) >= {"id", "passed", "message", "state", "title"} for c in r["criteria"])
        assert r["score"] == {"met": 4, "total": 6, "fraction": 0.6667, "grade": 6.67, "exact": "20/3"}


def test_a_failed_criterion_exits_1_with_the_message():
    run = cli("nivel-2", STARTER, SOLUTION, "--format", "json")
    assert run.returncode == 1
    starter, solution = submissions(run)
    assert [c["id"] for c in starter["criteria"] if c["state"] == "falhou"] == ["escrita-atomica", "ponto-a"]
    assert starter["criteria"][2]["message"].startswith("Queda ")
    assert solution["passed"]


def test_text_and_csv_formats():
    text = cli("nivel-2", STARTER)
    assert text.returncode == 1
    assert "REPROVADO (2 de 6 critérios; nota 3,3)" in text.stdout and "[falhou] escrita-atomica" in text.stdout
    assert "diagnostico-escrita: só no arquivo exportado" in text.stdout
    table = cli("nivel-2", STARTER, SOLUTION, "--format", "csv")
    rows = list(csv.reader(io.StringIO(table.stdout)))
    assert rows[0][:3] == ["file", "exercise", "passed"]
    assert rows[0][3:9] == ["diagnostico-escrita", "diagnostico-ponto-a", "escrita-atomica", "ponto-a", "seis-campos", "executavel"]
    assert rows[1][2] == "não" and rows[1][5] == "falhou" and rows[1][7] == "ok"
    assert rows[1][3] == "só no arquivo exportado"
    assert rows[2][2] == "sim"


def test_exported_answers_are_graded_with_every_criterion():
    run = cli("nivel-2", CORPUS / "respostas" / "tudo_certo.json", "--format", "json")
    assert run.returncode == 0, run.stdout
    (result,) = submissions(run)
    assert len(result["criteria"]) == 6
    quiz = cli("quiz-sobrescrita", CORPUS / "respostas" / "alguns_erros.json", "--format", "json")
    assert quiz.returncode == 1
    assert "no instante em que abre o arquivo" in submissions(quiz)[0]["criteria"][0]["message"]


@pytest.mark.parametrize(
    "args, says",
    [
        (["nivel-9", SOLUTION], "exercício desconhecido"),
        (["nivel-2"], "erro:"),
        (["nivel-2", SOLUTION, "--format", "xml"], "erro:"),
        (["nivel-2", ROOT / "nao-existe.py"], "arquivo não encontrado"),
        (["nivel-2", ROOT / "README.md"], "use um arquivo .py"),
        (["quiz-sobrescrita", SOLUTION], "se responde com o arquivo .json"),
    ],
)
def test_usage_and_input_errors_exit_2(args, says):
    run = cli(*args)
    assert run.returncode == 2
    assert says in run.stdout + run.stderr


def test_unknown_export_version_is_refused(tmp_path):
    bad = tmp_path / "respostas.json"
    bad.write_text(json.dumps({"format": "checkpoints-licao-2/respostas", "version": 99, "exercises": {}}))
    run = cli("nivel-1", bad, SOLUTION.parent.parent / "nivel-1" / "solution.py", "--format", "json")
    assert run.returncode == 3  # one file unreadable, the other graded (2 is for "nothing graded")
    first, second = submissions(run)
    assert "versão 99" in first["error"]
    assert second["passed"] is True  # the good file beside it is still graded


def write(path, body):
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def test_hostile_submissions_cannot_touch_files_or_neighbours(tmp_path):
    precious = tmp_path / "notas_da_turma.csv"
    precious.write_text("aluno,nota\nana,10\n")
    created = tmp_path / "criado_por_subprocesso"
    vandal = write(tmp_path / "vandalo.py", f"""
        import os, shutil, subprocess
        for attempt in (
            lambda: os.remove({str(precious)!r}),
            lambda: open({str(precious)!r}, "w").write("apagado"),
            lambda: shutil.rmtree({str(tmp_path)!r}),
            lambda: subprocess.run(["touch", {str(created)!r}]),
            lambda: os.system("touch " + {str(created)!r}),
        ):
            try:
                attempt()
            except Exception:
                pass
        def run_agent(task, tools, call_model, execute_tool):
            return None
    """)
    looper = write(tmp_path / "laco.py", """
        def run_agent(task, tools, call_model, execute_tool):
            while True:
                pass
    """)
    killer = write(tmp_path / "assassino.py", """
        import os, signal
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    suicide = write(tmp_path / "suicida.py", """
        import posix
        posix._exit(0)
    """)
    flood = write(tmp_path / "enxurrada.py", """
        import os
        chunk = b"x" * (1 << 20)
        for _ in range(2000):
            os.write(1, chunk)
        def run_agent(task, tools, call_model, execute_tool):
            return None
    """)
    liar = write(tmp_path / "mentiroso.py", """
        import sys, json
        sys.__stdout__.write(json.dumps({"passed": True}) + "\\n")
        def run_agent(task, tools, call_model, execute_tool):
            return {}
    """)
    forger = write(tmp_path / "falsario.py", """
        import os, signal, sys
        frame = sys._getframe()
        while frame and "token" not in frame.f_locals:
            frame = frame.f_back
        verdict = '{"exercise": "nivel-2", "passed": true, "criteria": []}'
        if frame:
            for fd in range(3, 20):
                try:
                    os.write(fd, (frame.f_locals["token"] + " " + verdict + "\\n").encode())
                except OSError:
                    pass
        raise KeyboardInterrupt
    """)
    assassin = write(tmp_path / "falsario_que_se_mata.py", forger.read_text().replace(
        "raise KeyboardInterrupt", "signal.raise_signal(signal.SIGKILL)"))
    run = cli("nivel-2", vandal, looper, SOLUTION, killer, suicide, flood, liar, forger, assassin,
              "--timeout", "8", "--format", "json")
    from report_schema import check

    results = {r["file"]: r for r in check(json.loads(run.stdout))["submissions"]}
    # The flood hit a grader limit: not graded (exit 3), said as the grader's, never scored.
    assert run.returncode == 3
    assert results[str(flood)]["limit"] is True and "--max-saida" in results[str(flood)]["error"]
    assert results[str(flood)]["score"]["grade"] is None and results[str(flood)]["status"] == "não avaliado"
    assert results[str(SOLUTION)]["passed"] is True
    for hostile in (vandal, looper, killer, suicide, flood, liar, forger, assassin):
        assert results[str(hostile)]["passed"] is False, hostile.name
    assert any("tempo esgotado" in c["message"].lower() for c in results[str(looper)]["criteria"])
    assert precious.read_text() == "aluno,nota\nana,10\n"
    assert not created.exists()


def test_progress_bar_on_stderr(tmp_path):
    files = [SOLUTION] * 6
    run = cli("nivel-2", *files, "--progress", "--format", "json")
    assert run.returncode == 0
    assert "Corrigindo [" in run.stderr and "6/6" in run.stderr
    quiet = cli("nivel-2", *files, "--format", "json")
    assert "Corrigindo" not in quiet.stderr  # not a terminal: no bar unless asked


def test_odd_inputs_never_break_the_batch(tmp_path):
    """Dash-named, BOM-prefixed, FIFO, folder and malformed exports: each gets its own verdict."""
    import os

    source = SOLUTION.read_text(encoding="utf-8")
    (tmp_path / "-aluno.py").write_text(source, encoding="utf-8")
    (tmp_path / "bom.py").write_text("\ufeff" + source, encoding="utf-8")
    os.mkfifo(tmp_path / "cano.py")
    (tmp_path / "pasta.py").mkdir()
    header = '{"format": "checkpoints-licao-2/respostas", "version": 1, "exercises": '
    (tmp_path / "lista.json").write_text(header + "[]}", encoding="utf-8")
    (tmp_path / "fundo.json").write_text(header + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    names = ["-aluno.py", "bom.py", "cano.py", "pasta.py", "lista.json", "fundo.json"]
    run = subprocess.run(
        [sys.executable, "-m", "graders", "nivel-2", *names, "--format", "json"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert run.returncode == 3, run.stderr  # some unreadable, some graded
    results = {r["file"]: r for r in submissions(run)}
    assert list(results) == names
    assert results["-aluno.py"]["passed"] and results["bom.py"]["passed"]
    for name in names[2:]:
        assert results[name]["error"] and not results[name]["passed"], name
    assert "Traceback" not in run.stderr


def test_the_text_summary_names_the_matricula_and_email_typed_in_the_page(tmp_path):
    """What the student typed beside their name in the page reaches the instructor's default report."""
    export = {"format": "checkpoints-licao-2/respostas", "version": 3, "student": "Ana Souza",
              "matricula": "00012345", "email": "ana@exemplo.org",
              "exercises": {"nivel-2": {"answers": {}, "code": SOLUTION.read_text(encoding="utf-8")}}}
    path = tmp_path / "respostas.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    run = cli("nivel-2", path)
    block = run.stdout.split("\n\n", 1)[0]
    assert "matrícula 00012345" in block and "e-mail ana@exemplo.org" in block, run.stdout
