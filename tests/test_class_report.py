"""The class report an instructor puts in the gradebook (issue 24): one row per person of the roster,
the whole assignment in the score, nothing under the folder left out, Moodle's and VPL's formats."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

CORPUS = ROOT / "tests" / "corpus"
ANSWERS = json.loads((CORPUS / "respostas" / "tudo_certo.json").read_text(encoding="utf-8"))
SOLUTION = {ex: (ROOT / "exercises" / ex / "solution.py").read_text(encoding="utf-8") for ex in ("nivel-1", "nivel-2")}

ROSTER = [  # (first name, last name, matrícula, e-mail), as Moodle's participant export has them
    ("Ana", "Souza", "2024001", "ana.souza@usp.br"),
    ("Bruno", "Melo", "2024002", "bruno.melo@usp.br"),
    ("João Pedro", "Álvares", "2024003", "joao.alvares@usp.br"),
    ("Maria Silva", "Santos", "2024004", "maria.santos@usp.br"),
    ("Maria Silva", "Costa", "2024005", "maria.costa@usp.br"),
    ("Kevin", "Øberg", "2024006", "kevin.oberg@usp.br"),
    ("Quézia", "Quiz", "2024007", "quezia@usp.br"),
] + [(f"Aluno{n:02d}", "Completo", f"20249{n:02d}", f"aluno{n:02d}@usp.br") for n in range(10)] \
  + [(f"Faltoso{n:02d}", "Ausente", f"20248{n:02d}", f"faltoso{n:02d}@usp.br") for n in range(13)]


def cli(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "graders", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def export(student, exercises=None) -> str:
    doc = {"format": "checkpoints-licao-2/respostas", "version": 2,
           "exercises": exercises if exercises is not None else ANSWERS["exercises"]}
    if student is not None:
        doc["student"] = student
    return json.dumps(doc, ensure_ascii=False)


@pytest.fixture(scope="module")
def turma(tmp_path_factory):
    """30 people on the roster; a class folder as Moodle's download and a hurried class leave it."""
    root = tmp_path_factory.mktemp("turma30")
    roster = root.parent / "participantes.csv"
    lines = ["Nome,Sobrenome,Número de identificação,Endereço de email"]
    lines += [",".join(p) for p in ROSTER]
    roster.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(lines).encode("utf-8"))
    entregas = root / "entregas"
    for n in range(10):  # complete exports, the name typed in many ways
        name = f"aluno{n:02d} COMPLETO" if n % 2 else f"Completo, Aluno{n:02d}".replace(",", "")
        (entregas / f"a{n:02d}").mkdir(parents=True)
        (entregas / f"a{n:02d}" / "respostas-licao-2.json").write_text(export(name), encoding="utf-8")
    # Per-student folders with a generic file name: who is who comes from the folder.
    for who, ex in (("ana-souza", "nivel-2"), ("bruno-melo", "nivel-1"), ("bruno-melo", "nivel-2")):
        (entregas / who / ex).mkdir(parents=True)
        (entregas / who / ex / "entrega.py").write_text(SOLUTION[ex], encoding="utf-8")
    (entregas / "joao_pedro_alvares-nivel2.py").write_text(SOLUTION["nivel-2"], encoding="utf-8")
    (entregas / "kevin.json").write_text(export("kevin oberg"), encoding="utf-8")
    (entregas / "quezia.json").write_text(export("Quézia Quiz", {"quiz-sobrescrita": ANSWERS["exercises"]["quiz-sobrescrita"]}),
                                          encoding="utf-8")
    (entregas / "maria.json").write_text(export("Maria Silva"), encoding="utf-8")  # two Marias Silva: ambiguous
    (entregas / "intruso.json").write_text(export("Zé Ninguém"), encoding="utf-8")  # not on the roster
    (entregas / "envio.zip").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    (entregas / "leia-me.txt").write_text("não é uma entrega", encoding="utf-8")
    (entregas / ".DS_Store").write_bytes(b"\0")
    return entregas, roster


@pytest.fixture(scope="module")
def report(turma):
    entregas, roster = turma
    run = cli("todos", entregas, "--turma", roster, "--format", "json")
    assert run.returncode in (1, 3), run.stderr
    return json.loads(run.stdout)


def _by_email(report):
    return {s["email"]: s for s in report["submissions"] if s["email"]}


def test_every_roster_student_has_exactly_one_row(report):
    rows = report["submissions"]
    emails = [s["email"] for s in rows if s["roster"] == "na turma"]
    assert sorted(emails) == sorted(p[3] for p in ROSTER)  # each once, merged files included
    bruno = _by_email(report)["bruno.melo@usp.br"]
    assert [f["shown"] for f in bruno["files"]] == ["bruno-melo/nivel-1/entrega.py", "bruno-melo/nivel-2/entrega.py"]
    assert bruno["identity"] == "turma" and bruno["student"] == "Bruno Melo"
    assert _by_email(report)["joao.alvares@usp.br"]["files"][0]["shown"] == "joao_pedro_alvares-nivel2.py"
    kevin = _by_email(report)["kevin.oberg@usp.br"]
    assert kevin["identity"] == "arquivo exportado" and kevin["score"]["grade"] == 10.0  # "oberg" is Øberg


def test_non_submitters_get_zero_and_say_so(report):
    absent = [s for s in report["submissions"] if s["status"] == "não entregou"]
    assert len(absent) == 13 + 2  # the 13 who sent nothing, and the two Marias (the file matched neither)
    assert all(s["score"]["grade"] == 0 and s["files"] == [] for s in absent)
    assert report["summary"]["not_submitted"] == 15


def test_a_partial_submission_is_a_fraction_of_a_complete_one(report):
    rows = _by_email(report)
    complete = rows["aluno01@usp.br"]["score"]["grade"]
    quiz = rows["quezia@usp.br"]["score"]["grade"]
    assert complete == 10.0 and 0 < quiz <= complete / 10, (quiz, complete)
    assert rows["quezia@usp.br"]["status"] == "incompleto"
    assert rows["quezia@usp.br"]["exercises"]["nivel-2"]["state"] == "não entregue"
    ana = rows["ana.souza@usp.br"]  # the nivel-2 code only: its 4 code criteria of the lesson's 17
    assert ana["score"]["met"] == 4 and ana["score"]["total"] == 17


def test_a_file_that_matches_nobody_or_two_people_is_listed_never_guessed(report):
    rows = {s["shown"]: s for s in report["submissions"] if s["files"]}
    assert rows["intruso.json"]["roster"].startswith("sem correspondência na turma: o arquivo diz “Zé Ninguém”")
    assert rows["maria.json"]["roster"].startswith("ambíguo na turma: Maria Silva Santos, Maria Silva Costa")
    assert report["summary"]["unmatched"] == 2


def test_nothing_under_the_folder_is_missing_from_the_report(turma, report):
    entregas, _ = turma
    on_disk = {os.path.relpath(os.path.join(d, f), entregas) for d, _, files in os.walk(entregas) for f in files}
    graded = {f["shown"] for s in report["submissions"] for f in s["files"]}
    ignored = {i["path"]: i["reason"] for i in report["ignored"]}
    assert graded | set(ignored) == on_disk and not graded & set(ignored)
    assert ignored["envio.zip"] == "compactado — extraia antes (ou use --zip)"
    assert ignored["leia-me.txt"] == "não é .py nem .json" and ignored[".DS_Store"].startswith("oculto")


def test_ignored_files_are_in_every_format(turma):
    entregas, _ = turma
    folder = entregas / "ana-souza"
    (folder / "trabalho.zip").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    try:
        for fmt in ("text", "planilha", "html"):
            out = cli("todos", folder, "--format", fmt).stdout
            assert "trabalho.zip" in out and "compactado — extraia antes" in out, fmt
    finally:
        (folder / "trabalho.zip").unlink()


def test_moodle_file_follows_the_grade_importer_rules(turma):
    entregas, roster = turma
    run = cli("todos", entregas, "--turma", roster, "--format", "moodle")
    assert run.returncode in (1, 3), run.stderr
    assert not run.stdout.startswith("\ufeff")  # Moodle's importer reads the first header as it is
    rows = list(csv.reader(io.StringIO(run.stdout)))  # "," (Moodle's default separator), one header row
    header = rows[0]
    assert header[:2] == ["Endereço de email", "Número de identificação"]
    assert header[3:7] == ["quiz-sobrescrita (0 a 10)", "nivel-1 (0 a 10)", "nivel-2 (0 a 10)", "Total (0 a 10)"]
    assert header[7:] == ["Comentários quiz-sobrescrita", "Comentários nivel-1", "Comentários nivel-2"]
    assert all(len(r) == len(header) for r in rows)
    table = {r[0]: dict(zip(header, r)) for r in rows[1:]}
    assert set(table) == {p[3] for p in ROSTER}  # one importable identity per row: the roster's people
    for r in table.values():
        for col in header[3:7]:
            assert r[col] == "" or (re.fullmatch(r"\d+\.\d\d", r[col]) and 0 <= float(r[col]) <= 10), r
    assert table["faltoso00@usp.br"]["Total (0 a 10)"] == "0.00"
    assert table["faltoso00@usp.br"]["Comentários nivel-2"] == "não entregou"
    ana = table["ana.souza@usp.br"]
    assert ana["nivel-2 (0 a 10)"] == "6.67" and "só no arquivo exportado" in ana["Comentários nivel-2"]
    # Who cannot be imported is said on stderr, never silently dropped.
    assert "Zé Ninguém" in run.stderr and "fora do arquivo do Moodle" in run.stderr
    scaled = cli("todos", entregas / "kevin.json", "--format", "moodle", "--nota-max", "100")
    assert "Total (0 a 100)" in scaled.stdout.splitlines()[0]


def test_vpl_output_is_what_vpl_parses(turma):
    entregas, _ = turma
    run = cli("todos", entregas / "ana-souza", "--format", "vpl")
    lines = run.stdout.splitlines()
    assert lines and all(line.startswith("Comment :=>>") for line in lines[:-1]), lines
    from graders import exercises

    # VPL collects code only (issue 46): the grade is over the code criteria, nivel-2's 4 of them met.
    code = sum(len(exercises.code_criteria(ex)) for ex in exercises.EXERCISE_IDS)
    assert re.fullmatch(r"Grade :=>>\d+\.\d\d", lines[-1]) and float(lines[-1].split(">>")[1]) == round(40 / code, 2)
    # A student's text can never forge a grade line.
    assert sum(line.startswith("Grade :=>>") for line in lines) == 1


def test_exercicios_narrows_the_assignment(turma):
    entregas, _ = turma
    doc = json.loads(cli("todos", entregas / "ana-souza", "--exercicios", "nivel-2", "--format", "json").stdout)
    (ana,) = doc["submissions"]
    assert doc["report"]["assignment"] == ["nivel-2"] and ana["score"]["total"] == 6 and ana["score"]["met"] == 4


def test_a_roster_without_identity_columns_is_refused(tmp_path):
    bad = tmp_path / "turma.csv"
    bad.write_text("Nome;Curso\nAna;Computação\n", encoding="latin-1")
    run = cli("todos", tmp_path, "--turma", bad)
    assert run.returncode == 2 and "e-mail ou de matrícula" in run.stderr


# --- the JSON matches its schema, for every kind of row ------------------------------------------


def test_json_validates_for_every_kind_of_row(turma, report, tmp_path):
    from report_schema import check

    check(report)  # roster rows, merged students, non-submitters, unmatched, ignored files (todos)
    kinds = {s["status"] for s in report["submissions"]}
    assert {"aprovado", "incompleto", "não entregou"} <= kinds, kinds
    latin = tmp_path / "joão.py"  # a valid Latin-1 source: graded, with its student and kind
    latin.write_bytes("# -*- coding: latin-1 -*-\n# João\n".encode("latin-1") + SOLUTION["nivel-2"].encode())
    broken = tmp_path / "quebrado.json"  # an input error
    broken.write_text("{", encoding="utf-8")
    starter = tmp_path / "inicial.py"  # a failed criterion, with a timeline
    starter.write_text((ROOT / "exercises" / "nivel-2" / "starter.py").read_text(encoding="utf-8"), encoding="utf-8")
    flood = tmp_path / "enchente.py"  # stopped by a grader limit: not graded
    flood.write_text("print('x' * (3 << 20))\n" + SOLUTION["nivel-2"], encoding="utf-8")
    files = [latin, broken, starter, flood, tmp_path / "nao-existe"]
    single = check(json.loads(cli("nivel-2", *files, "--format", "json").stdout))
    rows = {s["shown"]: s for s in single["submissions"]}
    assert rows[str(latin)]["status"] == "aprovado" and rows[str(latin)]["student"] == "joão"
    assert rows[str(latin)]["kind"] == "py"
    assert rows[str(broken)]["kind"] == "export" and rows[str(broken)]["status"] == "erro"
    assert rows[str(flood)]["status"] == "não avaliado" and rows[str(flood)]["limit"] is True
    assert rows[str(starter)]["timeline"]["points"] and rows[str(latin)]["timeline"] is not None
    assert "pasta ou arquivo não encontrado" in rows[str(tmp_path / "nao-existe")]["error"]
    check(json.loads(cli("todos", *files, "--format", "json").stdout))


# --- the HTML report for a real class -------------------------------------------------------------


@pytest.mark.browser
def test_html_report_for_a_real_class(turma, browser, tmp_path):
    from test_browser_a11y import axe_violations

    entregas, roster = turma
    run = cli("todos", entregas, "--turma", roster, "--format", "html")
    path = tmp_path / "turma.html"
    path.write_text(run.stdout, encoding="utf-8")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    assert page.locator("tbody tr[data-file]").count() == 32  # the roster's 30, the stranger and the ambiguous one
    # Scrolled all the way right, the name column is still in view, and still on top.
    wrap = page.locator(".table-wrap")
    assert wrap.evaluate("w => w.scrollWidth > w.clientWidth")
    wrap.evaluate("w => { window.scrollTo(0, w.getBoundingClientRect().top + scrollY); w.scrollLeft = w.scrollWidth; }")
    assert wrap.evaluate("w => w.scrollLeft") > 0
    name = page.locator("tbody tr[data-file] td.nome").first
    box, frame = name.bounding_box(), wrap.bounding_box()
    assert frame["x"] - 1 <= box["x"] <= frame["x"] + 1, (box, frame)
    hit = "e => { const r = e.getBoundingClientRect(); return e.contains(document.elementFromPoint(r.x + 5, r.y + 5)); }"
    assert name.evaluate(hit)
    # Criteria a .py cannot answer, or an exercise not sent, show "—", never "erro".
    cells = page.locator("tbody td.criterio").all_inner_texts()
    assert "erro" not in cells and "—" in cells
    # One column group per exercise folds away, and back.
    fold = page.get_by_role("button", name="nivel-1", exact=True)
    shown = "() => [...document.querySelectorAll('td.criterio[data-ex=\"nivel-1\"]')].filter(c => c.offsetParent).length"
    assert page.evaluate(shown) > 0
    fold.click()
    assert fold.get_attribute("aria-expanded") == "false" and page.evaluate(shown) == 0
    fold.click()
    assert page.evaluate(shown) > 0
    assert axe_violations(page) == []
    # A phone: compact cards (the exercises' points and only the failed criteria), nothing wider than it.
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    heights = page.locator("tbody tr[data-file]").evaluate_all("rows => rows.map(r => r.getBoundingClientRect().height)")
    assert max(heights) < 320, max(heights)
    assert page.locator("details.submission[open]").count() == 0  # the details are there on demand
    assert axe_violations(page) == []
    # The filter ignores accents and letters such as ø: "oberg" finds Øberg.
    page.fill("#filtro", "oberg")
    assert page.locator("tbody tr[data-file]:not([hidden])").count() == 1
    assert errors == []
    context.close()


# --- the smaller points ---------------------------------------------------------------------------


def test_a_mistyped_folder_is_said_to_be_missing(tmp_path):
    run = cli("todos", tmp_path / "trma-a", "--format", "json")
    assert run.returncode == 2
    (row,) = json.loads(run.stdout)["submissions"]
    assert "pasta ou arquivo não encontrado" in row["error"] and "use um arquivo" not in row["error"]


def test_an_exercise_name_without_its_hyphen_still_names_it(tmp_path):
    (tmp_path / "João_Pedro-nivel2.py").write_text(SOLUTION["nivel-2"], encoding="utf-8")
    (row,) = json.loads(cli("todos", tmp_path, "--format", "json").stdout)["submissions"]
    assert row["exercises"]["nivel-2"]["state"] == "avaliado" and "error" not in row


def test_a_long_name_cut_at_120_characters_has_no_trailing_space(tmp_path):
    name = "Ana " * 30 + "Beatriz Souza"  # the 120th character is a space
    (tmp_path / "ana.json").write_text(export(name, {"quiz-sobrescrita": ANSWERS["exercises"]["quiz-sobrescrita"]}),
                                       encoding="utf-8")
    (row,) = json.loads(cli("quiz-sobrescrita", tmp_path, "--format", "json").stdout)["submissions"]
    assert row["student"] == row["student"].strip() and len(row["student"]) <= 120


def test_written_answers_keep_their_lines_in_text(tmp_path):
    exercises = json.loads(json.dumps(ANSWERS["exercises"]))
    exercises["nivel-2"]["texts"] = {"primeira-falha": "Primeira linha.\nSegunda linha."}
    (tmp_path / "ana.json").write_text(export("Ana", exercises), encoding="utf-8")
    text = cli("nivel-2", tmp_path).stdout
    assert "\\n" not in text
    assert re.search(r"primeira-falha: Primeira linha\.\n +Segunda linha\.", text), text


def test_planilha_keeps_a_name_that_starts_with_a_dash_readable(tmp_path):
    (tmp_path / "-kevin.py").write_text(SOLUTION["nivel-2"], encoding="utf-8")
    (tmp_path / "=1+1.py").write_text(SOLUTION["nivel-2"], encoding="utf-8")
    raw = cli("nivel-2", tmp_path, "--format", "planilha").stdout
    rows = list(csv.reader(io.StringIO(raw.lstrip("\ufeff"), newline=""), delimiter=";"))
    cells = {r[0].strip(): r for r in rows[1:3]}
    assert "-kevin.py" in cells and not cells["-kevin.py"][0].startswith("'")  # no stray apostrophe
    assert cells["'=1+1.py"][0] == "'=1+1.py"  # a formula is still never run


# --- one way through the code ---------------------------------------------------------------------


def test_no_renderer_imports_another_or_the_model_builder():
    import ast

    folder = ROOT / "graders" / "cli" / "formats"
    renderers = {p.stem for p in folder.glob("*.py")} - {"__init__", "prose"}
    assert renderers == {"text", "json_doc", "csv_table", "planilha", "html", "moodle", "moodle_tarefa", "vpl"}
    for name in renderers:
        tree = ast.parse((folder / f"{name}.py").read_text(encoding="utf-8"))
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                imported |= {node.module or ""} | {a.name for a in node.names}
            elif isinstance(node, ast.Import):
                imported |= {a.name for a in node.names}
        assert not imported & (renderers - {name}), (name, imported)
        # Renderers read the report; they never rebuild, regrade or rescore it.
        assert not imported & {"classreport", "grading", "exercises", "summary", "copies", "identity"}, (name, imported)


# --- the model, without grading -------------------------------------------------------------------


def _verdict(exercise, passed_ids, all_ids, file="x"):
    from graders.cli.report import normalise

    criteria = [{"id": c, "passed": c in passed_ids, "message": ""} for c in all_ids]
    return normalise({"file": file, "exercise": exercise, "passed": all(c["passed"] for c in criteria),
                      "criteria": criteria})


def test_weights_from_a_pesos_file_change_the_score_by_the_formula():
    from graders import exercises
    from graders.cli import classreport, metadata

    code = exercises.code_criteria("nivel-2")
    row = {"file": "/t/ana.py", "shown": "ana.py", "student": "ana", "kind": "py",
           "results": {"nivel-2": _verdict("nivel-2", {"escrita-atomica"}, code)}}
    meta = metadata.describe(True, False, ["nivel-2", "quiz-sobrescrita"])
    plain = classreport.build([row], ["nivel-2", "quiz-sobrescrita"], "todos", meta, [])
    assert plain["students"][0]["score"] == {"met": 1, "total": 7, "fraction": 0.1429, "grade": 1.43, "exact": "10/7"}
    pesos = {"nivel-2": {"criterios": {"escrita-atomica": 3}}}
    weighted = classreport.build([row], ["nivel-2", "quiz-sobrescrita"], "todos", meta, [], pesos=pesos)
    # Criterion weights pool: Σ met weights / Σ all weights = 3 / ((3+5) + 1)
    assert weighted["students"][0]["score"]["met"] == 3 and weighted["students"][0]["score"]["total"] == 9
    # An exercise's peso is its share of the grade, whatever its criterion count (issue 46):
    # 2·(3/8) + 1·0 over 2 + 1.
    pesos = {"nivel-2": {"peso": 2, "criterios": {"escrita-atomica": 3}}, "quiz-sobrescrita": {"peso": 1}}
    shared = classreport.build([row], ["nivel-2", "quiz-sobrescrita"], "todos", meta, [], pesos=pesos)
    assert shared["students"][0]["score"]["grade"] == 2.5


def test_a_new_fact_of_the_report_reaches_every_format_that_has_a_header():
    from graders.cli import classreport, formats, metadata

    fences = {"bubblewrap": False, "landlock": 7, "uid_drop": True, "seccomp": True}
    meta = metadata.describe(False, False, ["nivel-2"], fences=fences)
    built = classreport.build([], ["nivel-2"], "nivel-2", meta, [])
    assert json.loads(formats.render("json", built))["report"]["fences"] == fences
    for fmt in ("text", "planilha", "html"):
        rendered = formats.render(fmt, built)
        assert "Cercas em vigor: bubblewrap: não; Landlock: sim (ABI 7" in rendered, fmt
        assert "outro usuário: sim" in rendered, fmt


def test_the_pesos_option_reads_a_toml_file(turma, tmp_path):
    entregas, _ = turma
    pesos = tmp_path / "pesos.toml"
    pesos.write_text("[nivel-2.criterios]\nescrita-atomica = 3\n", encoding="utf-8")
    doc = json.loads(cli("todos", entregas / "ana-souza", "--pesos", pesos, "--format", "json").stdout)
    (ana,) = doc["submissions"]
    assert doc["report"]["weights"]["nivel-2"] == {"exercise": 1, "criteria": {
        "diagnostico-escrita": 1, "diagnostico-ponto-a": 1, "escrita-atomica": 3, "ponto-a": 1, "seis-campos": 1,
        "executavel": 1}}
    assert ana["score"]["met"] == 6 and ana["score"]["total"] == 19  # 3+1+1+1 of 8 + 1 + 10
    pesos.write_text("[nivel-9]\npeso = 2\n", encoding="utf-8")
    bad = cli("todos", entregas / "ana-souza", "--pesos", pesos)
    assert bad.returncode == 2 and "exercício desconhecido 'nivel-9'" in bad.stderr


def test_a_version_3_export_is_matched_by_its_email_first(turma, tmp_path):
    _, roster = turma
    doc = json.loads(export("Apelido Qualquer", {"quiz-sobrescrita": ANSWERS["exercises"]["quiz-sobrescrita"]}))
    doc.update(version=3, email="Kevin.Oberg@usp.br")
    (tmp_path / "k.json").write_text(json.dumps(doc), encoding="utf-8")
    rows = json.loads(cli("todos", tmp_path, "--turma", roster, "--format", "json").stdout)["submissions"]
    kevin = next(s for s in rows if s["files"])
    assert kevin["student"] == "Kevin Øberg" and kevin["identity"] == "arquivo exportado"
    # Without a roster, the export's own e-mail is the identity Moodle imports by.
    moodle = cli("todos", tmp_path, "--format", "moodle").stdout.splitlines()
    assert moodle[1].startswith("Kevin.Oberg@usp.br,,Apelido Qualquer,")


def test_csv_with_every_exercise_carries_the_written_answers():
    from graders.cli import classreport, formats, metadata

    row = {"file": "/t/ana.json", "shown": "ana.json", "student": "Ana", "kind": "export",
           "results": {"nivel-2": {**_verdict("nivel-2", set(), ["escrita-atomica"]),
                                   "writings": [{"id": "primeira-falha", "text": "Abre com w."}]}}}
    ids = ["quiz-sobrescrita", "nivel-1", "nivel-2"]
    built = classreport.build([row], ids, "todos", metadata.describe(True, False, ids), [])
    (line,) = csv.DictReader(io.StringIO(formats.render("csv", built)))
    assert line["nivel-2:texto:primeira-falha"] == "Abre com w." and line["nivel-1:error"] == "não entregue"


def test_zip_files_are_read_in_memory_within_limits(tmp_path):
    import zipfile

    turma = tmp_path / "turma"
    turma.mkdir()
    with zipfile.ZipFile(turma / "ana-souza.zip", "w") as z:
        z.writestr("nivel-2/entrega.py", SOLUTION["nivel-2"])
        z.writestr("../../fora.py", "x = 1\n")  # zip-slip: never read, never written
        z.writestr("/etc/absoluto.py", "x = 1\n")
        z.writestr("bomba.py", b"#" * (1 << 20) + b"\n", compress_type=zipfile.ZIP_DEFLATED)  # 1 MB of one byte
        z.writestr("dentro.zip", b"PK")
    before = sorted(p.name for p in tmp_path.iterdir())
    doc = json.loads(cli("todos", turma, "--zip", "--format", "json").stdout)
    assert sorted(p.name for p in tmp_path.iterdir()) == before and not (tmp_path / "fora.py").exists()
    (ana,) = doc["submissions"]
    assert ana["student"] == "ana-souza" and ana["exercises"]["nivel-2"]["state"] == "avaliado"
    assert ana["files"][0]["shown"] == "ana-souza.zip/nivel-2/entrega.py"
    reasons = {i["path"]: i["reason"] for i in doc["ignored"]}
    assert reasons["ana-souza.zip/../../fora.py"].startswith("caminho suspeito")
    assert reasons["ana-souza.zip//etc/absoluto.py"].startswith("caminho suspeito")
    assert reasons["ana-souza.zip/bomba.py"].startswith("grande demais")
    assert reasons["ana-souza.zip/dentro.zip"].startswith("compactado dentro do .zip")


def test_two_files_of_one_exercise_under_one_name_are_not_merged_by_guess(tmp_path):
    quiz = {"quiz-sobrescrita": ANSWERS["exercises"]["quiz-sobrescrita"]}
    (tmp_path / "a.json").write_text(export("Ana", quiz), encoding="utf-8")
    (tmp_path / "b.json").write_text(export("Ana", quiz), encoding="utf-8")
    (tmp_path / "c.json").write_text(export("ana", {"nivel-2": ANSWERS["exercises"]["nivel-2"]}), encoding="utf-8")
    from report_schema import check

    rows = check(json.loads(cli("todos", tmp_path, "--format", "json").stdout))["submissions"]
    assert len(rows) == 2  # a.json and c.json (other exercises) are one Ana; b.json is kept apart
    assert [[f["shown"] for f in r["files"]] for r in rows] == [["a.json", "c.json"], ["b.json"]]
    assert all(r["identity_note"].startswith("mesmo nome de outra linha") for r in rows)
