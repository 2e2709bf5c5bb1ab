"""A Moodle class with every hazard of issue 46, graded by the real CLI and read back as Moodle's own
importers would read each file: the grading worksheet (mod/assign/feedback/offline) and the gradebook
CSV (grade/import/csv). A grade reaches a student only when it is theirs; otherwise there is none,
visibly, with the reason."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT

CORPUS = ROOT / "tests" / "corpus"
ANSWERS = json.loads((CORPUS / "respostas" / "tudo_certo.json").read_text(encoding="utf-8"))
SOLUTION = (ROOT / "exercises" / "nivel-2" / "solution.py").read_text(encoding="utf-8")
STARTER = (ROOT / "exercises" / "nivel-2" / "starter.py").read_text(encoding="utf-8")

# (participant N, full name, e-mail, ID number). Ana's ID number is Bruno's participant number: N is
# never an ID number, and matching it as one would hand Bruno's work to Ana.
PEOPLE = [
    (3318401, "Ana Souza", "ana@usp.br", "3318402"),
    (3318402, "Bruno Melo", "bruno@usp.br", "2024002"),
    (3318403, "João D'Ávila", "joao@usp.br", "00000001"),
    (3318404, "Carla Dias", "carla@usp.br", "2024004"),
    (3318405, "Davi Nunes", "davi@usp.br", "2024005"),
    (3318406, "Eva Lima", "eva@usp.br", "2024006"),
    (3318407, "Fábio Reis", "fabio@usp.br", "2024007"),
    (3318408, "Gil Rocha", "gil@usp.br", "2024008"),
    (3318409, "Hugo Alves", "hugo@usp.br", "2024009"),
    (3318410, "Iara Costa", "iara@usp.br", "2024010"),
    (3318411, "Lia Faltosa", "lia@usp.br", "2024011"),
]
HEADERS = {
    "pt_br": ["Identificador", "Nome completo", "Endereço de email", "Status", "Nota", "Nota máxima",
              "A nota pode ser alterada", "Última modificação (envio)", "Última modificação (nota)",
              "Comentários de feedback"],
    "en": ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade", "Grade can be changed",
           "Last modified (submission)", "Last modified (grade)", "Feedback comments"],
}
# get_string('hiddenuser', 'assign'): 'Participante' in the pt_br language pack (no space), 'Participant ' in en.
HIDDENUSER = {"pt_br": "Participante", "en": "Participant "}


def cli(*args, env=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "graders", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def export(student=None, exercises=None, version=2) -> str:
    doc = {"format": "checkpoints-licao-2/respostas", "version": version,
           "exercises": exercises if exercises is not None else ANSWERS["exercises"]}
    if student is not None:
        doc["student"] = student
    return json.dumps(doc, ensure_ascii=False)


def folder(root, name, n, plugin="file"):
    path = root / f"{name}_{n}_assignsubmission_{plugin}_"
    path.mkdir(parents=True, exist_ok=True)
    return path


def worksheet(lang: str, blind: bool = False) -> str:
    header = HEADERS[lang]
    if blind:
        header = [h for h in header if h not in ("Nome completo", "Endereço de email", "Full name", "Email address")]
    rows = [header]
    top = "10,00" if lang == "pt_br" else "10.00"
    for n, name, email, _ in PEOPLE:
        cells = dict(zip(HEADERS[lang], [f"{HIDDENUSER[lang]}{n}", name, email, "Enviado para avaliação", "", top,
                                          "Sim", "segunda, 1 dez 2025, 10:00", "-", ""]))
        rows.append([cells[h] for h in header])
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


@pytest.fixture(scope="module")
def turma(tmp_path_factory):
    root = tmp_path_factory.mktemp("moodle46")
    ent = root / "entregas"
    # Bruno's own submission holds an export whose name says Ana: it stays Bruno's.
    (folder(ent, "Bruno Melo", 3318402) / "respostas.json").write_text(export("Ana Souza"), encoding="utf-8")
    (folder(ent, "Ana Souza", 3318401) / "nivel-2.py").write_text(SOLUTION, encoding="utf-8")
    # clean_filename() drops the apostrophe: "João D'Ávila" hands in from "João DÁvila_N_…".
    (folder(ent, "João DÁvila", 3318403) / "respostas.json").write_text(export("joao"), encoding="utf-8")
    carla = folder(ent, "Carla Dias", 3318404)  # a good export beside a truncated second upload
    (carla / "respostas.json").write_text(export("Carla Dias"), encoding="utf-8")
    (carla / "respostas (1).json").write_text(export("Carla Dias")[:40], encoding="utf-8")
    (folder(ent, "Davi Nunes", 3318405) / "respostas.json").write_text(export("Davi", version=99), encoding="utf-8")
    with zipfile.ZipFile(folder(ent, "Eva Lima", 3318406) / "entrega.zip", "w") as z:
        z.writestr("dentro.zip", b"PK\x05\x06" + b"\0" * 18)
    (folder(ent, "Fábio Reis", 3318407) / "leia-me.txt").write_text("não é código", encoding="utf-8")
    (folder(ent, "Gil Rocha", 3318408, "onlinetext") / "onlinetext.html").write_text("<p>def f(): pass</p>",
                                                                                      encoding="utf-8")
    # Download in folders off: flat files side by side, each its own N.
    (ent / "Hugo Alves_3318409_assignsubmission_file_respostas.json").write_text(export("Hugo"), encoding="utf-8")
    (ent / "Iara Costa_3318410_assignsubmission_file_respostas.json").write_text(
        export("Iara", {"quiz-sobrescrita": ANSWERS["exercises"]["quiz-sobrescrita"]}), encoding="utf-8")
    (folder(ent, "Zé Ninguém", 9999999) / "respostas.json").write_text(export("Zé Ninguém"), encoding="utf-8")
    sheets = {}
    for lang in ("pt_br", "en"):
        sheets[lang] = root / f"planilha-{lang}.csv"
        sheets[lang].write_text(worksheet(lang), encoding="utf-8")
    # The participants export, saved by a Windows spreadsheet (Windows-1252), with a column nobody reads.
    part = root / "participantes.csv"
    lines = ["Nome;Sobrenome;Número de identificação;Endereço de email;Cartão"]
    lines += [f"{name.split()[0]};{' '.join(name.split()[1:])};{idn};{email};x" for _, name, email, idn in PEOPLE]
    lines.append("Pedro;D’Ávila;2024099;pedro@usp.br;x")
    part.write_bytes("\r\n".join(lines).encode("cp1252"))
    return ent, sheets, part


@pytest.fixture(scope="module")
def json_report(turma):
    ent, sheets, _ = turma
    run = cli("todos", ent, "--turma", sheets["pt_br"], "--zip", "--format", "json")
    assert run.returncode in (1, 3), run.stderr
    from report_schema import check

    doc = check(json.loads(run.stdout))
    return {s["student"]: s for s in doc["submissions"]}, doc, run.stderr


UNGRADED = {"Carla Dias": "respostas (1).json", "Davi Nunes": "respostas.json", "Eva Lima": "dentro.zip",
            "Fábio Reis": "leia-me.txt", "Gil Rocha": "onlinetext.html"}


def test_each_file_is_credited_to_whoever_handed_it_in(json_report):
    rows, _, _ = json_report
    bruno, ana = rows["Bruno Melo"], rows["Ana Souza"]
    assert bruno["score"]["grade"] == 10.0 and bruno["identity"] == "entrega do Moodle"
    assert "o arquivo diz Ana Souza, mas veio da entrega de Bruno Melo" in bruno["identity_note"]
    # Ana's own work only: the nivel-2 code, never Bruno's export (her ID number is his N).
    assert [f["shown"] for f in ana["files"]] == ["Ana Souza_3318401_assignsubmission_file_/nivel-2.py"]
    assert ana["score"]["met"] == 4 and ana["score"]["total"] == 17
    assert rows["João D'Ávila"]["score"]["grade"] == 10.0
    assert rows["Hugo Alves"]["score"]["grade"] == 10.0 and rows["Iara Costa"]["status"] == "incompleto"
    assert rows["Lia Faltosa"]["status"] == "não entregou" and rows["Lia Faltosa"]["score"]["grade"] == 0


def test_not_graded_is_never_a_number(json_report):
    rows, doc, _ = json_report
    for name, file in UNGRADED.items():
        row = rows[name]
        assert row["gradable"] is False and row["score"]["grade"] is None, name
        assert row["status"] in ("erro", "não avaliado") and row["ungraded_reason"], name
        named = row["ungraded_reason"] + " ".join(u["path"] for u in row["unread"])
        assert file in named, (name, row["ungraded_reason"], row["unread"])
    assert "texto online" in rows["Gil Rocha"]["ungraded_reason"]
    assert "não é .py nem .json" in rows["Fábio Reis"]["ungraded_reason"]
    zé = next(s for s in doc["submissions"] if s["files"] and "Zé" in s["files"][0]["shown"])
    assert zé["roster"].startswith("sem correspondência na turma: nenhuma linha da planilha de notas é Participante 9999999")


def _import_worksheet(text: str, lang: str, sheet: str) -> dict:
    """Moodle's offline importer, as its source reads a worksheet: importgradeslib.php init() finds the
    columns by get_string('grade'), get_string('recordid', 'assign') and get_string('lastmodifiedgrade',
    'assign') (all three required); next() takes the participant as substr(Identifier,
    strlen(get_string('hiddenuser', 'assign'))); process_import_grades() reads the grade with
    unformat_float() and skips it when empty, negative or above the assignment's maximum."""
    rows = list(csv.reader(io.StringIO(text)))
    original = list(csv.reader(io.StringIO(sheet)))
    header = rows[0]
    assert header == original[0] and len(rows) == len(original)
    grade = header.index("Nota" if lang == "pt_br" else "Grade")
    ident = header.index("Identificador" if lang == "pt_br" else "Identifier")
    modified = header.index("Última modificação (nota)" if lang == "pt_br" else "Last modified (grade)")
    feedback = header.index("Comentários de feedback" if lang == "pt_br" else "Feedback comments")
    imported, comments = {}, {}
    for row, before in zip(rows[1:], original[1:]):
        # Only the grade and the feedback cells change; the identifier and dates are as downloaded.
        assert [c for i, c in enumerate(row) if i not in (grade, feedback)] == \
               [c for i, c in enumerate(before) if i not in (grade, feedback)]
        assert row[modified] == before[modified] and row[ident] == before[ident]
        n = int(row[ident][len(HIDDENUSER[lang]):])
        comments[n] = row[feedback]
        cell = row[grade]
        if cell == "":
            continue  # "Skip - grade has no value": nothing is erased
        value = float(cell.replace(",", ".")) if lang == "pt_br" else float(cell)
        assert ("," in cell) == (lang == "pt_br") and "." not in cell.replace(",", "") or lang == "en"
        assert 0 <= value <= 10, cell  # above the maximum Moodle would skip it without a word
        imported[n] = value
    return {"grades": imported, "comments": comments}


@pytest.mark.parametrize("lang", ["pt_br", "en"])
def test_the_grading_worksheet_filled_in_imports_only_real_grades(turma, lang):
    ent, sheets, _ = turma
    run = cli("todos", ent, "--turma", sheets[lang], "--zip", "--format", "moodle-tarefa")
    assert run.returncode in (1, 3), run.stderr
    result = _import_worksheet(run.stdout, lang, sheets[lang].read_text(encoding="utf-8"))
    grades, comments = result["grades"], result["comments"]
    number = {name: n for n, name, _, _ in PEOPLE}
    assert grades[number["Bruno Melo"]] == 10.0 and grades[number["João D'Ávila"]] == 10.0
    assert grades[number["Ana Souza"]] == round(10 * 4 / 17, 2)
    assert grades[number["Lia Faltosa"]] == 0.0 and comments[number["Lia Faltosa"]] == "não entregou"
    for name in UNGRADED:
        assert number[name] not in grades, name
        assert comments[number[name]].startswith("Sem nota até o professor olhar"), comments[number[name]]
    assert "o arquivo diz Ana Souza" in comments[number["Bruno Melo"]]
    if lang == "pt_br":
        assert ',"2,35",' in run.stdout  # 4/17 of 10, in the worksheet's decimal form


def test_a_blind_marked_worksheet_matches_participant_folders(tmp_path):
    ent = tmp_path / "entregas"
    (folder(ent, "Participante", 3318402) / "respostas.json").write_text(export("Ana Souza"), encoding="utf-8")
    (folder(ent, "Participante", 3318401) / "nivel-2.py").write_text(SOLUTION, encoding="utf-8")
    sheet = tmp_path / "cega.csv"
    sheet.write_text(worksheet("pt_br", blind=True), encoding="utf-8")
    run = cli("todos", ent, "--turma", sheet, "--format", "moodle-tarefa")
    assert run.returncode in (1, 3), run.stderr
    grades = _import_worksheet(run.stdout, "pt_br", sheet.read_text(encoding="utf-8"))["grades"]
    assert grades[3318402] == 10.0 and grades[3318401] == round(40 / 17, 2)
    assert set(grades) == {n for n, *_ in PEOPLE}  # the others did not hand in: 0,00
    wrong = cli("todos", ent, "--turma", sheet, "--format", "moodle-tarefa", "--nota-max", "100")
    assert wrong.returncode == 2 and "Nota máxima da planilha" in wrong.stderr


def test_the_gradebook_csv_imports_exactly(turma):
    """grade/import/csv/classes/load_data.php: prepare_import_grade_data() sets $this->studentid once,
    before the rows; map_user_data_with_value() replaces it only for a non-blank identity cell (a blank
    one credits the row above), and an identity nobody has cancels the whole import
    (usermappingerror); update_grade_item() turns '' into null, erasing a grade. lib/csvlib.class.php
    refuses a row whose column count differs from the header's."""
    ent, _, part = turma
    run = cli("todos", ent, "--turma", part, "--zip", "--format", "moodle")
    assert run.returncode in (1, 3), run.stderr
    rows = list(csv.reader(io.StringIO(run.stdout)))
    header = rows[0]
    assert all(len(r) == len(header) for r in rows)
    emails = {p[2]: p for p in PEOPLE} | {"pedro@usp.br": None}
    ids = {p[3]: p for p in PEOPLE} | {"2024099": None}
    total = header.index("Total (0 a 10)")
    for mapping, known in ((0, emails), (1, ids)):  # mapping by e-mail, then by ID number
        seen = set()
        for r in rows[1:]:
            assert r[mapping] and r[mapping] in known, r  # never blank, never unknown
            assert r[mapping] not in seen
            seen.add(r[mapping])
            assert r[total] != ""  # an empty cell would erase a grade in Moodle
    by_email = {r[0]: r for r in rows[1:]}
    assert by_email["bruno@usp.br"][total] == "10.00"
    assert by_email["ana@usp.br"][1] == "3318402" and by_email["ana@usp.br"][total] == "2.35"
    assert by_email["joao@usp.br"][total] == "10.00"  # "João DÁvila" folder, "João D'Ávila" on the roster
    for name in UNGRADED:
        email = next(p[2] for p in PEOPLE if p[1] == name)
        assert email not in by_email, name  # no grade: no row
    assert "Zé Ninguém" not in run.stdout and "Zé Ninguém" in run.stderr
    assert "nenhum aluno da lista se chama “Zé Ninguém”" in run.stderr
    # The roster said once what it read: Windows-1252 read as such, and the column it ignored.
    assert "colunas ignoradas: Cartão" in run.stderr
    assert "Pedro D’Ávila" in run.stdout  # 0x92 is ’ in Windows-1252 (a control code in Latin-1)
    assert run.stderr.count("colunas lidas") == 1
    big = cli("todos", ent / "Bruno Melo_3318402_assignsubmission_file_", "--format", "moodle", "--nota-max", "200")
    assert "passa de 100" in big.stderr and "gradepointmax" in big.stderr


def test_every_format_shows_the_conflict_and_the_missing_grade(turma):
    ent, sheets, _ = turma
    for fmt in ("text", "planilha", "html", "csv", "moodle", "moodle-tarefa", "json"):
        out = cli("todos", ent, "--turma", sheets["pt_br"], "--zip", "--format", fmt).stdout
        assert "o arquivo diz Ana Souza, mas veio da entrega de Bruno Melo" in out, fmt
        if fmt.startswith("moodle"):  # the files Moodle imports name no ignored file: their rows are grades
            continue
        assert "texto online `onlinetext.html`" in out, fmt
        assert "respostas (1).json" in out and "leia-me.txt" in out, fmt


def test_vpl_grades_code_on_vpls_scale(tmp_path):
    sol = tmp_path / "solucao.py"
    sol.write_text(SOLUTION, encoding="utf-8")
    run = cli("nivel-2", sol, "--format", "vpl", env={"VPL_GRADEMAX": "5", "VPL_GRADEMIN": "1"})
    assert run.stdout.splitlines()[-1] == "Grade :=>>5.00", run.stdout  # the reference solution reaches the max
    bad = tmp_path / "quebrado.py"
    bad.write_bytes(b"\xff\xfe\x00")
    run = cli("nivel-2", bad, "--format", "vpl", env={"VPL_GRADEMAX": "5", "VPL_GRADEMIN": "1"})
    lines = run.stdout.splitlines()
    # Not graded: no Grade line at all (VPL's proposedgrade() finds none and stores no grade).
    assert not any(line.startswith("Grade :=>>") for line in lines), lines
    assert any(line.startswith("Comment :=>>Sem nota:") for line in lines)


def test_weights_are_what_the_instructor_means(tmp_path):
    sol = tmp_path / "nivel-2" / "ana.py"
    sol.parent.mkdir()
    sol.write_text(SOLUTION, encoding="utf-8")
    pesos = tmp_path / "pesos.toml"
    pesos.write_text("[nivel-2.criterios]\nescrita_atomica = 3\n", encoding="utf-8")
    run = cli("todos", sol.parent, "--pesos", pesos)
    assert run.returncode == 2 and "critério desconhecido 'escrita_atomica'" in run.stderr
    assert "escrita-atomica" in run.stderr  # the known ids are listed
    pesos.write_text("[nivel-1]\npeso = 0\n[nivel-2]\npeso = 0\n[quiz-sobrescrita]\npeso = 0\n", encoding="utf-8")
    run = cli("todos", sol.parent, "--pesos", pesos)
    assert run.returncode == 2 and "peso 0" in run.stderr
    run = cli("todos", sol.parent, "--pesos", tmp_path / "nada.toml")
    assert run.returncode == 2 and "arquivo não encontrado" in run.stderr and "Errno" not in run.stderr
    # 10/30/60: who aced only the 60 exercise (its code, with the nivel-2 questions left) gets 60 % of it.
    pesos.write_text("[quiz-sobrescrita]\npeso = 10\n[nivel-1]\npeso = 30\n[nivel-2]\npeso = 60\n", encoding="utf-8")
    doc = json.loads(cli("todos", sol.parent, "--pesos", pesos, "--format", "json").stdout)
    assert doc["submissions"][0]["score"]["grade"] == round(6 * 4 / 6, 2)


# --- the model, without grading: rounding, teams, interruption -------------------------------------


def _verdict(exercise, passed, ids, file="x", **extra):
    from graders.cli.report import normalise

    criteria = [{"id": c, "passed": c in passed, "message": ""} for c in ids]
    return normalise({"file": file, "exercise": exercise, "passed": all(c["passed"] for c in criteria),
                      "criteria": criteria, **extra})


def _build(rows, people=None, **kw):
    from graders.cli import classreport, metadata

    ids = ["quiz-sobrescrita", "nivel-1", "nivel-2"]
    return classreport.build(rows, ids, "todos", metadata.describe(True, False, ids), [], people=people, **kw)


@pytest.mark.parametrize("met, one, two", [(13, "7,6", "7.65"), (14, "8,2", "8.24")])
def test_one_rounding_from_the_exact_value_in_every_format(met, one, two):
    from graders import exercises
    from graders.cli import formats

    every = [(ex, exercises.criterion_ids(ex)) for ex in ("quiz-sobrescrita", "nivel-1", "nivel-2")]
    flat = [(ex, c) for ex, ids in every for c in ids]
    assert len(flat) == 17
    passed = set(flat[:met])
    results = {ex: _verdict(ex, {c for e, c in passed if e == ex}, ids) for ex, ids in every}
    row = {"file": "/t/ana.json", "shown": "ana.json", "student": "Ana", "kind": "export", "email": "a@b.c",
           "results": results}
    built = _build([row])
    assert built["students"][0]["score"]["grade"] == float(two)
    assert f"nota {one}" in formats.render("text", built)
    assert f";{one};" in formats.render("planilha", built)
    assert f"{one} ({met} de 17)" in formats.render("html", built)
    assert f",{two}," in formats.render("moodle", built) and f",{two}," in formats.render("csv", built)
    assert json.loads(formats.render("json", built))["submissions"][0]["score"]["grade"] == float(two)


def test_a_team_folder_goes_to_every_member_and_an_unknown_group_to_nobody():
    from graders.cli.roster import Person

    people = [Person("Ana Lima", "ana@x", None, None, 11, "Grupo 3 - Noturno", 0),
              Person("Rui Paz", "rui@x", None, None, 12, "Grupo 3 - Noturno", 1),
              Person("Sol Mar", "sol@x", None, None, 13, "Grupo 4", 2)]
    code = _verdict("nivel-2", {"escrita-atomica"}, ["escrita-atomica"])
    rows = [{"file": "/t/a.py", "shown": "Grupo 3 - Noturno_7_assignsubmission_file_/nivel-2.py", "student": "x",
             "kind": "py", "results": {"nivel-2": code}},
            {"file": "/t/b.py", "shown": "Grupo 9_8_assignsubmission_file_/nivel-2.py", "student": "x",
             "kind": "py", "results": {"nivel-2": code}},
            # Moodle up to 4.0: one folder per member, group name first, N the member's own.
            {"file": "/t/c.py", "shown": "Grupo 4-Sol Mar_13_assignsubmission_file_/nivel-2.py", "student": "x",
             "kind": "py", "results": {"nivel-2": code}},
            # A group missing from the worksheet's group column, whose id is also Ana's participant number.
            {"file": "/t/d.py", "shown": "Grupo 7_11_assignsubmission_file_/nivel-2.py", "student": "x",
             "kind": "py", "results": {"nivel-2": code}}]
    built = _build(rows, people)
    by = {s["student"]: s for s in built["students"]}
    assert by["Ana Lima"]["files"][0]["file"] == "/t/a.py" and by["Rui Paz"]["files"][0]["file"] == "/t/a.py"
    assert by["Sol Mar"]["files"][0]["file"] == "/t/c.py"
    stray = next(s for s in built["students"] if s["files"] and s["files"][0]["file"] == "/t/b.py")
    assert stray["roster"].startswith("sem correspondência na turma")
    assert [f["file"] for f in by["Ana Lima"]["files"]] == ["/t/a.py"]  # never the unknown group's
    group = next(s for s in built["students"] if s["files"] and s["files"][0]["file"] == "/t/d.py")
    assert group["roster"].startswith("sem correspondência na turma") and "Participante 11" in group["roster"]


def test_flat_and_blind_files_of_different_numbers_are_never_merged():
    rows = [{"file": f"/t/{n}.json", "shown": f"Participante_{n}_assignsubmission_file_respostas.json",
             "student": "Ana", "kind": "export",
             "results": {"quiz-sobrescrita": _verdict("quiz-sobrescrita", set(), ["q"])}} for n in (1, 2)]
    built = _build(rows)
    assert sorted(s["student"] for s in built["students"]) == ["Participante 1", "Participante 2"]


def test_leading_zeros_stay_text_in_a_portuguese_spreadsheet(tmp_path):
    """LibreOffice opens the planilha as a pt-BR user would (NOTES: infilter 59,34,76,1,,1046)."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    assert soffice, "LibreOffice (libreoffice-calc) is a test prerequisite: make test installs it"
    from graders.cli import formats

    row = {"file": "/t/ana.py", "shown": "ana.py", "student": "Ana", "kind": "py", "id_number": "00000001",
           "email": "a@b.c", "results": {"nivel-2": _verdict("nivel-2", set(), ["escrita-atomica"])}}
    planilha = tmp_path / "notas.csv"
    planilha.write_text(formats.render("planilha", _build([row])), encoding="utf-8")
    subprocess.run([soffice, "--headless", f"-env:UserInstallation=file://{tmp_path}/lo", "--infilter=CSV:59,34,76,1,,1046",
                    "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1,,1046,false,true,false,false,false",
                    "--outdir", str(tmp_path / "out"), str(planilha)], check=True, capture_output=True, timeout=180)
    seen = (tmp_path / "out" / "notas.csv").read_text(encoding="utf-8")
    line = next(line for line in seen.splitlines() if line.startswith("ana.py"))
    assert ",00000001," in line and '="' not in line, line


def test_copies_of_the_reference_and_the_starter_are_named_and_reports_are_not_read(tmp_path):
    turma = tmp_path / "nivel-2"
    turma.mkdir()
    tweaked = SOLUTION.replace("checkpoint.json", "estado.json", 1) if "checkpoint.json" in SOLUTION else SOLUTION + "\nX = 1\n"
    (turma / "ana.py").write_text(tweaked, encoding="utf-8")  # one literal changed
    for name in ("bia", "caio", "davi", "eva", "gil", "hugo", "iara", "joel"):  # most of the class: the reference
        (turma / f"{name}.py").write_text(SOLUTION, encoding="utf-8")
    (turma / "fabio.py").write_text(STARTER, encoding="utf-8")
    first = cli("nivel-2", turma, "--format", "json")
    doc = json.loads(first.stdout)
    kinds = {m["file"]: g["kind"] for g in doc["possible_copies"] for m in g["members"]}
    assert kinds["ana.py"] in ("igual à solução de referência", "parecido com a solução de referência"), kinds
    assert kinds["fabio.py"] == "igual ao código inicial"
    (turma / "relatorio.json").write_text(first.stdout, encoding="utf-8")
    again = json.loads(cli("nivel-2", turma, "--format", "json").stdout)
    assert len(again["submissions"]) == len(doc["submissions"])
    assert any(i["path"] == "relatorio.json" and "relatório do próprio corretor" in i["reason"] for i in again["ignored"])


def test_with_a_participants_export_folders_match_by_the_name_moodle_writes():
    import unicodedata

    from graders.cli.identity import RosterIndex, lms_of, match_lms
    from graders.cli.roster import Person

    people = [Person("José D'Ávila", "jose@x", "3318402"), Person("Sol Mar", "sol@x", "13"),
              Person("Rui Paz", "rui@x", "1"), Person("Rui Paz", "rui2@x", "2")]
    index = RosterIndex(people)

    def who(shown):
        found = match_lms(lms_of(shown), index)
        return [people[i].email for i in found.people], found.note

    nfd = unicodedata.normalize("NFD", "José DÁvila")  # a Mac unzips names decomposed
    assert who(f"{nfd}_7_assignsubmission_file_/a.py") == (["jose@x"], None)
    assert who("Grupo 4-Sol Mar_9_assignsubmission_file_/a.py") == (["sol@x"], None)  # team prefix, Moodle <= 4.0
    # N is never an ID number: folder 13 is not Sol Mar's ID "13", and nobody is named "Ana".
    assert who("Ana_13_assignsubmission_file_/a.py")[0] == []
    people_, note = who("Rui Paz_5_assignsubmission_file_/a.py")
    assert people_ == [] and note.startswith("ambíguo na turma: Rui Paz, Rui Paz")
    people_, note = who("Participante_5_assignsubmission_file_/a.py")
    assert people_ == [] and "planilha de notas" in note


def test_an_interrupted_file_has_no_grade_in_any_format():
    """Ctrl+C (graders.cli.main) leaves the files it did not reach as this result: one state, every format."""
    from graders.cli import classreport, formats, roster
    from graders.cli.report import normalise

    done = _verdict("nivel-2", {"escrita-atomica"}, ["escrita-atomica"])
    cut = normalise({"file": "/t/b.py", "exercise": "nivel-2", "passed": False, "criteria": [],
                     "error": classreport.INTERRUPTED, "limit": True})
    rows = [{"file": "/t/a.py", "shown": "Ana Souza_1_assignsubmission_file_/a.py", "student": "a", "kind": "py",
             "results": {"nivel-2": done}},
            {"file": "/t/b.py", "shown": "Bruno Melo_2_assignsubmission_file_/b.py", "student": "b", "kind": "py",
             "results": {"nivel-2": cut}}]
    sheet = roster.parse_roster("Identificador,Nome completo,Endereço de email,Nota,Nota máxima,"
                                "Última modificação (nota),Comentários de feedback\n"
                                "Participante1,Ana Souza,ana@x,,\"10,00\",-,\nParticipante2,Bruno Melo,bruno@x,,\"10,00\",-,\n")
    built = _build(rows, sheet.people, worksheet=sheet.worksheet)
    bruno = next(s for s in built["students"] if s["student"] == "Bruno Melo")
    assert bruno["gradable"] is False and "interrompida" in bruno["ungraded_reason"]
    out = {fmt: formats.render(fmt, built) for fmt in formats.MODULES}
    doc = json.loads(out["json"])
    assert [s["score"]["grade"] for s in doc["submissions"]] == [0.59, None]  # 1 of 17 criteria, and none
    assert "bruno@x" not in out["moodle"] and "ana@x" in out["moodle"]
    tarefa = list(csv.reader(io.StringIO(out["moodle-tarefa"])))
    assert tarefa[1][3] == "0,59" and tarefa[2][3] == "" and "interrompida" in tarefa[2][6]
    line = next(r for r in csv.DictReader(io.StringIO(out["csv"])) if r["student"] == "Bruno Melo")
    assert line["grade"] == "" and "interrompida" in line["not_graded"]
    planilha = next(r for r in csv.reader(io.StringIO(out["planilha"].lstrip("\ufeff")), delimiter=";")
                    if len(r) > 1 and r[1] == "Bruno Melo")
    assert "" in planilha and any("interrompida" in c for c in planilha)
    for fmt in ("text", "html"):
        assert "SEM NOTA até você olhar — " in out[fmt] and "interrompida" in out[fmt], fmt
    single = formats.render("vpl", _build(rows[1:]))
    assert "Grade :=>>" not in single and "interrompida" in single


def test_a_moodle_looking_file_name_in_a_students_folder_does_not_change_whose_it_is():
    """Moodle names the folder, or a flat download's files at one level: a file named like Moodle's flat
    download inside one student's folder was named by whoever handed it in, so the folder decides (and
    the note says so); a flat download inside an ordinary folder of many students still goes by N."""
    code = _verdict("nivel-2", {"escrita-atomica"}, ["escrita-atomica"])
    posed = [{"file": "/t/a.py", "shown": "alice/Bob_7_assignsubmission_file_solucao.py", "student": "x",
              "kind": "py", "results": {"nivel-2": code}},
             {"file": "/t/b.py", "shown": "bob/solucao.py", "student": "x", "kind": "py", "results": {"nivel-2": code}}]
    built = _build(posed)
    by = {s["student"]: s for s in built["students"]}
    assert sorted(by) == ["alice", "bob"], sorted(by)
    assert "imita um download do Moodle" in (by["alice"]["identity_note"] or "")
    flat = [{"file": f"/t/{n}.py", "shown": f"turma-a/{name}_{n}_assignsubmission_file_solucao.py", "student": "x",
             "kind": "py", "results": {"nivel-2": code}} for n, name in ((7, "Bob"), (8, "Ana"))]
    built = _build(flat)
    assert sorted(s["student"] for s in built["students"]) == ["Ana", "Bob"]
