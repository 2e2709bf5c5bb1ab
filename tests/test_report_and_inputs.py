"""Reading submission files (graders.submission) and rendering results (graders.cli.report) never break a batch."""

from __future__ import annotations

import csv
import io
import json
import os
import socket
import stat
import tempfile
import threading
import time

import pytest

from conftest import ROOT
from graders import exercises, submission
from graders.cli import report
from graders.cli.report import CUT, MESSAGE_LIMIT, normalise, render_csv, render_json, render_text
from graders.submission import MAX_BYTES, Submission, SubmissionError, from_export, read

CORPUS = ROOT / "tests" / "corpus"
FORMAT = submission.EXPORT_FORMAT
NIVEL2_IDS = ["diagnostico-escrita", "diagnostico-ponto-a", "escrita-atomica", "ponto-a", "seis-campos", "executavel"]
NIVEL2_TEXTS = [f"texto:{w['id']}" for w in exercises.writings("nivel-2")]
# Appended after the written answers (issue 18): who sent the file and the score.
SCORE_COLUMNS = ["student", "met", "graded"]


def call_with_timeout(fn, *args, seconds=5.0):
    """Run fn in a thread; fail (instead of hanging the suite) if it does not return in time."""
    box = {}

    def target():
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    started = time.monotonic()
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{fn.__name__}{args} still running after {seconds} s"
    box["elapsed"] = time.monotonic() - started
    return box


def refused(path, exercise="nivel-2") -> str:
    box = call_with_timeout(read, str(path), exercise)
    assert "value" not in box, f"{path} was accepted: {box.get('value')!r}"
    assert isinstance(box["error"], SubmissionError), repr(box["error"])
    return str(box["error"])


def export(exercises=None, **top) -> str:
    """An answers file; version 1 unless `version=` says otherwise."""
    doc = {"format": FORMAT, "version": 1, "exercises": {} if exercises is None else exercises}
    doc.update(top)
    return json.dumps(doc)


# --- submission.read: what is not a regular file is refused, without hanging ------------------


def test_fifo_is_refused_without_hanging(tmp_path):
    fifo = tmp_path / "entrega.py"
    os.mkfifo(fifo)
    message = refused(fifo)
    assert "não é um arquivo comum" in message and "pipe" in message


def test_fifo_behind_a_symlink_is_refused(tmp_path):
    fifo = tmp_path / "cano"
    os.mkfifo(fifo)
    link = tmp_path / "entrega.json"
    link.symlink_to(fifo)
    assert "pipe" in refused(link)


def test_fifo_swapped_in_after_the_first_check_is_refused_by_fstat(tmp_path, monkeypatch):
    # The path passes os.stat() as a regular file, then turns out to be a FIFO once opened:
    # only a non-blocking open and the fstat() check stand between read() and a hang.
    fifo = tmp_path / "entrega.py"
    os.mkfifo(fifo)
    regular = os.stat(__file__)
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda p, *a, **k: regular if str(p) == str(fifo) else real_stat(p, *a, **k))
    assert "pipe" in refused(fifo)


@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero", "/dev/urandom"])
def test_devices_are_refused(tmp_path, device):
    link = tmp_path / "entrega.py"
    link.symlink_to(device)
    assert "dispositivo" in refused(link)
    assert refused(device)  # without the symlink: refused too (any message)


def test_directory_is_refused(tmp_path):
    folder = tmp_path / "entrega.py"
    folder.mkdir()
    assert refused(folder) == "é uma pasta, não um arquivo"


def test_socket_is_refused():
    folder = tempfile.mkdtemp(prefix="s", dir="/tmp")  # AF_UNIX paths must be short
    path = os.path.join(folder, "e.py")
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(path)
        assert stat.S_ISSOCK(os.stat(path).st_mode)
        assert "socket" in refused(path)
    finally:
        server.close()
        os.unlink(path)
        os.rmdir(folder)


def test_symlink_to_a_regular_file_is_followed(tmp_path):
    target = tmp_path / "verdadeiro.py"
    target.write_text("x = 1\n", encoding="utf-8")
    link = tmp_path / "entrega.py"
    link.symlink_to(target)
    assert read(str(link), "nivel-2") == Submission(code="x = 1\n", answers=None)


@pytest.mark.parametrize(
    "name, says",
    [
        ("nao-existe.py", "arquivo não encontrado"),
        ("nao-existe.json", "arquivo não encontrado"),
        ("pasta-que-nao-existe/entrega.py", "arquivo não encontrado"),
        ("entrega.txt", "use um arquivo .py"),
        ("entrega", "use um arquivo .py"),
        ("entrega.py.zip", "use um arquivo .py"),
    ],
)
def test_missing_files_and_other_extensions(tmp_path, name, says):
    assert says in refused(tmp_path / name)


def test_extension_is_checked_before_the_file_is_opened(tmp_path):
    fifo = tmp_path / "notas.csv"
    os.mkfifo(fifo)
    assert "use um arquivo .py" in refused(fifo)


def test_a_nul_in_the_path_is_refused():
    assert "caractere inválido" in refused("entrega\0.py")


def test_a_file_inside_a_regular_file_is_not_found(tmp_path):
    (tmp_path / "arquivo").write_text("")
    assert refused(tmp_path / "arquivo" / "entrega.py") == "arquivo não encontrado"


def test_uppercase_extension_is_accepted(tmp_path):
    path = tmp_path / "ENTREGA.PY"
    path.write_text("x = 1\n", encoding="utf-8")
    assert read(str(path), "nivel-2").code == "x = 1\n"


# --- submission.read: size and encoding ----------------------------------------------------


def test_utf8_bom_is_stripped_from_python(tmp_path):
    path = tmp_path / "entrega.py"
    path.write_bytes(b"\xef\xbb\xbfprint('ol\xc3\xa1')\n")
    sub = read(str(path), "nivel-2")
    assert sub.code == "print('olá')\n" and sub.answers is None
    compile(sub.code, "entrega.py", "exec")


def test_utf8_bom_is_stripped_from_an_export(tmp_path):
    path = tmp_path / "respostas.json"
    path.write_bytes(b"\xef\xbb\xbf" + export({"nivel-2": {"answers": {"a": "b"}, "code": "x = 1"}}).encode())
    assert read(str(path), "nivel-2") == Submission(code="x = 1", answers={"a": "b"})


def test_windows_newlines_become_unix_newlines(tmp_path):
    path = tmp_path / "entrega.py"
    path.write_bytes(b"x = 1\r\ny = 2\rz = 3\n")
    assert read(str(path), "nivel-2").code == "x = 1\ny = 2\nz = 3\n"


def test_not_utf8_is_refused_with_the_position(tmp_path):
    path = tmp_path / "entrega.py"
    path.write_bytes("# coração\n".encode("latin-1"))
    message = refused(path)
    assert "não está em UTF-8" in message and "posição 6" in message


def test_utf16_is_refused_by_name(tmp_path):
    path = tmp_path / "entrega.py"
    path.write_bytes("x = 1\n".encode("utf-16"))
    assert "UTF-16" in refused(path)


def test_a_file_over_the_limit_is_refused_and_one_at_the_limit_is_read(tmp_path):
    big = tmp_path / "grande.py"
    big.write_bytes(b"#" * (MAX_BYTES + 1))
    assert "arquivo grande demais" in refused(big)
    exact = tmp_path / "exato.py"
    exact.write_bytes(b"#" * MAX_BYTES)
    assert len(read(str(exact), "nivel-2").code) == MAX_BYTES


def test_a_huge_sparse_file_is_refused_quickly(tmp_path):
    huge = tmp_path / "enorme.json"
    with open(huge, "wb") as f:
        f.truncate(50 * 1024**3)  # 50 GB of holes: must not be read
    box = call_with_timeout(read, str(huge), "nivel-2")
    assert "arquivo grande demais" in str(box["error"]) and box["elapsed"] < 2


def test_the_read_itself_is_capped_when_the_size_lies(tmp_path, monkeypatch):
    # Files in /proc (and files still growing) report a size that is not what a read returns.
    big = tmp_path / "grande.py"
    big.write_bytes(b"#" * (3 * MAX_BYTES))
    real_fstat = os.fstat

    def lying_fstat(fd):
        info = list(real_fstat(fd))
        info[stat.ST_SIZE] = 0
        return os.stat_result(info)

    monkeypatch.setattr(os, "fstat", lying_fstat)
    assert "arquivo grande demais" in refused(big)


def test_empty_python_file_is_read_as_empty_code(tmp_path):
    path = tmp_path / "vazio.py"
    path.write_bytes(b"")
    assert read(str(path), "nivel-2") == Submission(code="", answers=None)


def test_the_descriptor_is_closed_after_every_outcome(tmp_path):
    good = tmp_path / "bom.py"
    good.write_text("x = 1\n")
    bad = tmp_path / "ruim.py"
    bad.write_bytes(b"\xff\xff")
    big = tmp_path / "grande.py"
    big.write_bytes(b"#" * (MAX_BYTES + 1))
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(50):
        for path in (good, bad, big):
            try:
                read(str(path), "nivel-2")
            except SubmissionError:
                pass
    assert len(os.listdir("/proc/self/fd")) <= before


@pytest.mark.parametrize("path", sorted((CORPUS / "respostas").glob("*.json")), ids=lambda p: p.name)
def test_every_corpus_export_is_still_read(path):
    for exercise in ("quiz-sobrescrita", "nivel-1", "nivel-2"):
        sub = read(str(path), exercise)
        assert isinstance(sub.answers, dict)
        assert sub.code is None or isinstance(sub.code, str)


# --- submission.from_export: malformed exports -------------------------------------------------


def nested(depth: int) -> str:
    return '{"format": "%s", "version": 1, "exercises": {}, "x": %s}' % (FORMAT, "[" * depth + "]" * depth)


MALFORMED = {
    # not JSON at all
    "empty": ("", "não é um JSON válido"),
    "truncated": ('{"format": ', "não é um JSON válido (erro na linha 1"),
    "python literal": ("{'format': 1}", "não é um JSON válido"),
    "deep nesting": (nested(100_000), "aninhados fundo demais"),
    "deep nesting at the top": ("[" * 100_000, "aninhados fundo demais"),
    "deep objects": ('{"a":' * 100_000, "aninhados fundo demais"),
    "NaN": (export(x=float("nan")), "NaN"),
    "Infinity": (export(x=float("inf")), "Infinity"),
    "-Infinity": (export(x=float("-inf")), "-Infinity"),
    "huge int": (export(x=10**200), "número grande demais"),
    "huge int past CPython's limit": (export(x=0).replace('"x": 0', '"x": ' + "9" * 5000), "número grande demais"),
    "huge negative int": (export(x=-(10**200)), "número grande demais"),
    "duplicate top-level key": ('{"format": "%s", "version": 1, "version": 1, "exercises": {}}' % FORMAT,
                                'chave "version" repetida'),
    "duplicate answer": ('{"format": "%s", "version": 1, "exercises": {"nivel-2": {"answers": '
                         '{"falha-escrita": "sobrescreve", "falha-escrita": "x"}}}}' % FORMAT, "repetida"),
    "duplicate huge key": ('{"format": "%s", "version": 1, "exercises": {}, "%s": 1, "%s": 2}'
                           % (FORMAT, "k" * 10_000, "k" * 10_000), "repetida"),
    # the document itself
    "top-level list": ("[]", "não é um arquivo de respostas"),
    "top-level string": ('"oi"', "não é um arquivo de respostas"),
    "top-level null": ("null", "não é um arquivo de respostas"),
    "no format": (json.dumps({"version": 1, "exercises": {}}), "não é um arquivo de respostas"),
    "other format": (export(format="outro"), "não é um arquivo de respostas"),
    "format not a string": (export(format=["x"]), "não é um arquivo de respostas"),
    "no version": (json.dumps({"format": FORMAT, "exercises": {}}), "não diz a sua versão"),
    "version 99": (export(version=99), "versão 99"),
    "version 0": (export(version=0), "versão 0"),
    "version as text": (export(version="1"), 'versão "1"'),
    "version as float": (export(version=1.0), "versão 1.0"),
    "version true": (export(version=True), "versão true"),
    "version null": (export(version=None), "versão null"),
    "version as list": (export(version=[1]), "versão uma lista"),
    "version huge text": (export(version="v" * 100_000), "não é suportada"),
    "no exercises": (json.dumps({"format": FORMAT, "version": 1}), "não tem o campo exercises"),
    "exercises list": (export([]), "campo exercises que deveria ser um objeto (veio uma lista)"),
    "exercises string": (export("nivel-2"), "deveria ser um objeto"),
    "exercises number": (export(1), "deveria ser um objeto"),
    "exercises null": (export(None).replace('"exercises": {}', '"exercises": null'), "deveria ser um objeto"),
    "exercises true": (export(True), "deveria ser um objeto"),
    # entries
    "entry list": (export({"nivel-2": []}), 'a entrada de "nivel-2" no arquivo de respostas deveria ser um objeto'),
    "entry string": (export({"nivel-2": "import os"}), "deveria ser um objeto"),
    "entry number": (export({"nivel-2": 2}), "deveria ser um objeto"),
    "entry null": (export({"nivel-2": None}), "deveria ser um objeto"),
    "entry false": (export({"nivel-2": False}), "deveria ser um objeto"),
    "another exercise's entry": (export({"nivel-1": 5, "nivel-2": {"code": "x = 1"}}), 'a entrada de "nivel-1"'),
    "code number": (export({"nivel-2": {"code": 5}}), 'o campo code de "nivel-2" deveria ser texto'),
    "code list": (export({"nivel-2": {"code": ["import os"]}}), "deveria ser texto"),
    "code object": (export({"nivel-2": {"code": {}}}), "deveria ser texto"),
    "code true": (export({"nivel-2": {"code": True}}), "deveria ser texto"),
    "answers list": (export({"nivel-2": {"answers": []}}), 'o campo answers de "nivel-2" deveria ser um objeto'),
    "answers string": (export({"nivel-2": {"answers": "sobrescreve"}}), "deveria ser um objeto"),
    "answers empty string": (export({"nivel-2": {"answers": ""}}), "deveria ser um objeto"),
    "answers zero": (export({"nivel-2": {"answers": 0}}), "deveria ser um objeto"),
    "answer number": (export({"nivel-2": {"answers": {"falha-escrita": 1}}}), 'a resposta "falha-escrita"'),
    "answer float": (export({"nivel-2": {"answers": {"falha-escrita": 1.5}}}), "deveria ser o id de uma opção"),
    "answer true": (export({"nivel-2": {"answers": {"falha-escrita": True}}}), "deveria ser o id de uma opção"),
    "answer object": (export({"nivel-2": {"answers": {"falha-escrita": {"id": "x"}}}}), "(veio um objeto)"),
    "answer list with a number": (export({"nivel-2": {"answers": {"q": ["a", 1]}}}), "(veio uma lista)"),
    "answer list with null": (export({"nivel-2": {"answers": {"q": ["a", None]}}}), "deveria ser o id"),
    "answer nested list": (export({"nivel-2": {"answers": {"q": [["a"]]}}}), "deveria ser o id"),
    "version 4": (export(version=4), "(esperada: 1, 2 ou 3)"),
    "email number": (export(version=3, email=5), "o campo email (e-mail do aluno) deveria ser texto"),
    "revealed text": (export({"nivel-2": {"revealed": "ponto-a"}}, version=2), 'o campo revealed de "nivel-2" deveria ser uma lista'),
    "revealed with a number": (export({"nivel-2": {"revealed": ["ponto-a", 1]}}, version=2), "deveria ser uma lista de ids"),
}


@pytest.mark.parametrize("text, says", list(MALFORMED.values()), ids=list(MALFORMED))
def test_malformed_export_is_a_short_portuguese_submission_error(text, says):
    with pytest.raises(SubmissionError) as caught:
        from_export(text, "nivel-2")
    message = str(caught.value)
    assert says in message
    assert len(message) < 300
    error = caught.value
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)
    for english in ("Expecting", "Exceeds", "maximum recursion", "Traceback", "line "):
        assert english not in message


@pytest.mark.parametrize("name", ["deep nesting", "exercises list", "answer number", "NaN"])
def test_malformed_export_read_from_a_file_is_refused_the_same(tmp_path, name):
    path = tmp_path / "respostas.json"
    path.write_text(MALFORMED[name][0], encoding="utf-8")
    assert MALFORMED[name][1] in refused(path)


def test_revealed_answers_are_read_from_version_2_and_old_exports_stay_readable():
    entry = {"answers": {"falha-escrita": "dumps"}, "revealed": ["diagnostico-escrita", "diagnostico-escrita"]}
    assert from_export(export({"nivel-2": entry}, version=2), "nivel-2").revealed == ["diagnostico-escrita"]
    # Version 1 had no `revealed`: read as before, a stray key is not the student's choice.
    old = from_export(export({"nivel-2": {**entry, "revealed": 5}}), "nivel-2")
    assert old.answers == {"falha-escrita": "dumps"} and old.revealed is None


def test_version_3_carries_the_students_email_or_matricula_and_older_versions_stay_readable():
    entry = {"quiz-sobrescrita": {"answers": {"resposta": "lento"}}}
    sub = from_export(export(entry, version=3, student="Ana", email=" ana@usp.br ", matricula="2024001"), "quiz-sobrescrita")
    assert (sub.student, sub.email, sub.id_number) == ("Ana", "ana@usp.br", "2024001")
    old = from_export(export(entry, version=2, email="ana@usp.br"), "quiz-sobrescrita")
    assert old.email is None  # not a field of version 2: ignored, as any other unknown key


def test_a_revealed_criterion_keeps_its_verdict_and_every_report_says_so():
    from graders.grading import grade

    sub = from_export(export({"quiz-sobrescrita": {"answers": {"resposta": "lento"}, "revealed": ["resposta"]}},
                             version=2), "quiz-sobrescrita")
    result = grade("quiz-sobrescrita", sub).to_dict()
    (criterion,) = result["criteria"]
    assert criterion["passed"] is False and criterion["revealed"] is True
    assert "Se o processo morrer antes de a escrita acabar" in criterion["answer"]  # the right option, shown
    assert criterion["label"]  # revealed: the full criterion too
    result["file"] = "ana.json"
    text = render_text([result])
    assert "ana.json: REPROVADO (0 de 1 critério; 1 resposta revelada)" in text
    assert "[falhou] resposta (resposta revelada):" in text
    rows = list(csv.reader(io.StringIO(render_csv([result], "quiz-sobrescrita"))))
    assert rows[1][3] == "falhou (resposta revelada)"
    assert json.loads(render_json([result]))[0]["criteria"][0]["revealed"] is True
    from graders.cli import classreport, formats, metadata

    row = {"file": "ana.json", "shown": "ana.json", "student": "Ana", "kind": "export",
           "results": {"quiz-sobrescrita": normalise(result)}}
    built = classreport.build([row], ["quiz-sobrescrita"], "quiz-sobrescrita",
                              metadata.describe(True, False, ["quiz-sobrescrita"]), [])
    for fmt in ("text", "csv", "planilha", "html", "vpl", "moodle"):
        assert "resposta revelada" in formats.render(fmt, built) or fmt in ("vpl", "moodle"), fmt
    assert "falhou (resposta revelada)" in formats.render("html", built)


def test_a_failed_answer_names_what_is_wrong_never_the_right_option():
    from graders.grading import grade

    for exercise in ("quiz-sobrescrita", "nivel-1", "nivel-2"):
        for blank in (True, False):
            answers = {}
            if not blank:  # every question answered wrong (multiple choice: every option ticked)
                for q in exercises.questions(exercise):
                    wrong = [o["id"] for o in q["options"] if not o.get("correct")]
                    answers[q["id"]] = [o["id"] for o in q["options"]] if q["type"] == "multiple" else wrong[0]
            verdict = grade(exercise, Submission(None if exercise == "quiz-sobrescrita" else "", answers, {})).to_dict()
            messages = {c["id"]: c for c in verdict["criteria"]}
            for q in exercises.questions(exercise):
                c = messages[q["criterion"]]
                assert not c["passed"] and "label" not in c and "answer" not in c, c
                for o in q["options"]:
                    if o.get("correct"):  # neither the option's text nor, in multiple choice, its name
                        assert (o["text"] if q["type"] == "multiple" else o["text"][:40]) not in c["message"], (c["id"], o["id"])
            assert all(not w["model"] for w in verdict.get("writings", [])), exercise


def test_site_blank_answers_are_dropped_and_lists_kept():
    text = export({"nivel-2": {"answers": {"falha-escrita": None, "efeito-escrita": "meio-documento",
                                           "multipla": ["a", "b"], "vazia": []}}})
    sub = from_export(text, "nivel-2")
    assert sub == Submission(code=None, answers={"efeito-escrita": "meio-documento", "multipla": ["a", "b"], "vazia": []})


@pytest.mark.parametrize(
    "entry, expected",
    [
        ({}, Submission(None, {})),
        ({"answers": None, "code": None}, Submission(None, {})),
        ({"code": "x = 1"}, Submission("x = 1", {})),
        ({"code": "x = '\ud800'"}, Submission("x = '\ud800'", {})),  # the grader judges it, not the reader
        ({"code": "x\0"}, Submission("x\0", {})),
        ({"answers": {"q": "a"}, "extra": [1, 2]}, Submission(None, {"q": "a"})),
    ],
)
def test_well_formed_entries(entry, expected):
    assert from_export(export({"nivel-2": entry}, exportedAt="2025-01-01T00:00:00Z"), "nivel-2") == expected


def test_an_exercise_absent_from_the_export_has_no_code_and_no_answers():
    assert from_export(export({"nivel-1": {"code": "x"}}), "nivel-2") == Submission(code=None, answers={})
    assert from_export(export(), "quiz-sobrescrita") == Submission(code=None, answers={})


def test_a_moderately_nested_unused_field_and_big_floats_are_accepted():
    text = nested(200).replace('"x": ', '"exportedAt": 1e999, "x": ')
    assert from_export(text, "nivel-2") == Submission(code=None, answers={})


def test_from_python_keeps_the_text():
    assert submission.from_python("print(1)\n") == Submission("print(1)\n", None)


# --- report: hostile strings --------------------------------------------------------------------

HOSTILE = (
    "\x1b[2J\x1b[31mAPROVADO\x1b[0m\x00\x07\x08\r\nnova linha\ttab\x7f\x9b31m\x85"
    "\u202eexe.txt\u2066\u200f\u2028\u2029\ufeff\u200b\ud800\udfff\U000e0041"
)
RAW_FORBIDDEN = set(chr(c) for c in range(0x20)) | set(chr(c) for c in range(0x7F, 0xA0)) | set(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u2028\u2029\ufeff\u200b\ud800\udfff"
)


def hostile_results():
    return [
        {
            "file": "entregas/" + HOSTILE + ".py",
            "exercise": "nivel-2",
            "passed": False,
            "criteria": [
                {"id": "escrita-atomica", "passed": False, "message": HOSTILE * 40,
                 "disk": {"crash": HOSTILE, "path": "checkpoint.json", "exists": True, "bytes": 12,
                          "content": '{\n  "a": "\x1b[31m\u202e"\n}'}},
                {"id": "ponto-a", "passed": False, "message": "x" * 1_000_000},
                {"id": "seis-campos", "passed": True, "message": "", "hint": HOSTILE},
                {"id": "executavel", "passed": True, "message": "\n".join(["linha"] * 50)},
            ],
        },
        {"file": "=HYPERLINK(\"http://mal\")" + HOSTILE + ".json", "exercise": "nivel-2", "passed": False,
         "criteria": [], "error": "versão " + HOSTILE * 1000},
        {"file": "boa.py", "exercise": "nivel-2", "passed": True,
         "criteria": [{"id": i, "passed": True, "message": "ok 👩‍💻 ação"} for i in NIVEL2_IDS]},
    ]


def assert_no_raw_controls(text: str):
    bad = sorted({hex(ord(c)) for c in text if c in RAW_FORBIDDEN and c != "\n"})
    assert not bad, bad
    text.encode("utf-8")  # no lone surrogate left


def test_clean_escapes_visibly_and_keeps_ordinary_text():
    assert report.clean("Queda simulada: «ação» 👩‍💻 ✓") == "Queda simulada: «ação» 👩‍💻 ✓"
    assert report.clean("a\x1bb\nc\rd\te\x00f\x9bg") == "a\\x1bb\\nc\\rd\\te\\x00f\\x9bg"
    assert report.clean("x\u202ey\u2066z\ud800w\U000e0041") == "x\\u202ey\\u2066z\\ud800w\\U000e0041"
    assert report.clean("a\nb\tc\x1b", keep_newlines=True) == "a\nb\tc\\x1b"
    assert report.clean(None) == "" and report.clean(12) == "12" and report.clean(10**5000) == "(número grande demais)"
    assert report.clean(["a", {"b": "\x1b"}]).startswith("[")


def test_clean_caps_long_text_after_escaping():
    assert report.clean("y" * 10) == "y" * 10
    capped = report.clean("y" * 5000)
    assert capped == "y" * MESSAGE_LIMIT + CUT
    escaped = report.clean("\x1b" * 5000)
    assert escaped.endswith(CUT) and len(escaped) <= MESSAGE_LIMIT + len(CUT)
    assert escaped[: -len(CUT)] == "\\x1b" * (MESSAGE_LIMIT // 4)  # never cut inside an escape
    started = time.monotonic()
    report.clean("\x00" * 50_000_000)
    assert time.monotonic() - started < 1


def test_text_report_with_hostile_messages_keeps_its_layout():
    results = hostile_results()
    out = render_text(results)
    assert_no_raw_controls(out)
    lines = out.splitlines()
    # One line per file, plus one per criterion: a message can never add a line.
    assert len(lines) == (1 + 4) + 1 + (1 + 6)
    assert lines[0].startswith("entregas/\\x1b[2J\\x1b[31mAPROVADO") and lines[0].endswith(": REPROVADO (2 de 4 critérios)")
    assert lines[1].startswith("  [falhou] escrita-atomica: \\x1b[2J") and lines[1].endswith(CUT)
    assert lines[2] == "  [falhou] ponto-a: " + "x" * MESSAGE_LIMIT + CUT
    assert lines[3].startswith("  [ok    ] seis-campos: \\x1b")
    assert "\\u202e" in out and "\\ud800" in out and "\\n" in lines[4]
    assert lines[5].startswith("=HYPERLINK") and ": ERRO DE ENTRADA — versão \\x1b" in lines[5]
    assert lines[6] == "boa.py: APROVADO (6 de 6 critérios)"
    assert lines[7] == "  [ok    ] diagnostico-escrita: ok 👩‍💻 ação"
    assert max(map(len, lines)) < 3 * MESSAGE_LIMIT


def test_csv_report_with_hostile_messages_parses_back_with_constant_columns():
    results = hostile_results()
    out = render_csv(results, "nivel-2")
    assert_no_raw_controls(out.replace("\r\n", "\n"))
    assert out.count("\r\n") == 1 + len(results)  # one physical line per record
    rows = list(csv.reader(io.StringIO(out, newline="")))
    assert rows[0] == ["file", "exercise", "passed", *NIVEL2_IDS, "error", *NIVEL2_TEXTS, *SCORE_COLUMNS]
    assert len(rows) == 1 + len(results)
    assert {len(row) for row in rows} == {len(rows[0])}
    hostile, error, good = rows[1:]
    assert hostile[0].startswith("entregas/\\x1b[2J") and hostile[2] == "não"
    assert hostile[3:9] == ["", "", "falhou", "falhou", "ok", "ok"] and hostile[9] == ""
    assert error[0].startswith("'=HYPERLINK")  # a spreadsheet shows it, never runs it
    assert error[9].startswith("versão \\x1b") and error[9].endswith(CUT) and len(error[9]) <= MESSAGE_LIMIT + len(CUT)
    assert good[2] == "sim" and good[3:9] == ["ok"] * 6


def test_csv_cells_starting_like_formulas_are_neutralised():
    results = [{"file": name, "exercise": "nivel-2", "passed": False, "criteria": [], "error": name}
               for name in ("=1+1.py", "+1.py", "-1.py", "@SUM(A1).py", "\t=1.py")]
    rows = list(csv.reader(io.StringIO(render_csv(results, "nivel-2"))))[1:]
    for row in rows:
        assert row[0][0] == "'" or row[0].startswith("\\t")
        error = row[3 + len(NIVEL2_IDS)]
        assert error[0] == "'" or error.startswith("\\t")


def test_json_report_with_hostile_messages_is_valid_and_sanitised():
    results = hostile_results()
    out = render_json(results)
    out.encode("utf-8")
    assert "\x1b" not in out and "\u202e" not in out and "\x9b" not in out and "\u2028" not in out
    data = json.loads(out, parse_constant=lambda name: pytest.fail(f"non-standard JSON constant {name}"))
    assert [r["file"] for r in data][2] == "boa.py" and len(data) == len(results)
    first = data[0]
    assert first["file"].startswith("entregas/\\x1b[2J")
    assert set(first) == {"file", "exercise", "passed", "criteria"}
    atomic = first["criteria"][0]
    assert atomic["message"].startswith("\\x1b[2J") and atomic["message"].endswith(CUT)
    assert atomic["disk"]["content"] == '{\n  "a": "\\x1b[31m\\u202e"\n}'  # newlines kept in the disk view
    assert atomic["disk"]["bytes"] == 12 and atomic["disk"]["exists"] is True
    assert first["criteria"][1]["message"] == "x" * MESSAGE_LIMIT + CUT
    assert first["criteria"][2]["hint"].startswith("\\x1b")
    assert first["criteria"][3]["message"] == "\\n".join(["linha"] * 50)  # messages: as in text and CSV
    assert data[1]["error"].startswith("versão \\x1b") and data[1]["criteria"] == []
    assert data[2]["passed"] is True and data[2]["criteria"][0]["message"] == "ok 👩‍💻 ação"


def test_json_report_survives_values_json_cannot_hold():
    deep = []
    for _ in range(100_000):
        deep = [deep]
    crash = {"crash": "queda", "nan": float("nan"), "inf": float("-inf"), "big": 10**5000, 3: "int key",
             None: "null key", "deep": deep, "set": {1, 2}, "many": list(range(5000)), "bytes": b"\x1b"}
    results = [{"file": "a.py", "exercise": "nivel-2", "passed": False, "output": "\ud800",
                "criteria": [{"id": "escrita-atomica", "passed": False, "message": "m", "disk": crash, "extra": deep}]}]
    data = json.loads(render_json(results), parse_constant=lambda name: pytest.fail(name))
    disk = data[0]["criteria"][0]["disk"]
    assert disk["nan"] == "nan" and disk["inf"] == "-inf" and disk["big"] == "(número grande demais)"
    assert disk["3"] == "int key" and disk[""] == "null key"
    assert len(disk["many"]) == report.MAX_ITEMS + 1 and disk["many"][-1].startswith("… [cortado")
    assert "\\x1b" in disk["bytes"] and isinstance(disk["set"], str)
    assert data[0]["output"] == "\\ud800"
    assert "(aninhado fundo demais)" in json.dumps(disk["deep"])
    assert data[0]["criteria"][0]["extra"] is not None


# --- report: broken result dicts -----------------------------------------------------------------

BROKEN = {
    "None": None,
    "number": 5,
    "string": "resultado",
    "list": [{"file": "a.py"}],
    "empty dict": {},
    "only a file": {"file": "so-nome.py"},
    "criteria not a list": {"file": "b.py", "exercise": "nivel-2", "passed": False, "criteria": "oops"},
    "criteria a dict": {"file": "b2.py", "exercise": "nivel-2", "passed": False, "criteria": {"id": "x"}},
    "criterion None": {"file": "c.py", "exercise": "nivel-2", "passed": False, "criteria": [None]},
    "criterion without id": {"file": "d.py", "exercise": "nivel-2", "passed": False, "criteria": [{"passed": False}]},
    "criterion id a number": {"file": "e.py", "exercise": "nivel-2", "passed": False,
                              "criteria": [{"id": 5, "passed": False, "message": "m"}]},
    "criterion passed a string": {"file": "f.py", "exercise": "nivel-2", "passed": False,
                                  "criteria": [{"id": "ponto-a", "passed": "sim", "message": "m"}]},
    "passed a string": {"file": "g.py", "exercise": "nivel-2", "passed": "sim", "criteria": []},
    "passed missing": {"file": "h.py", "exercise": "nivel-2",
                       "criteria": [{"id": "ponto-a", "passed": True, "message": ""}]},
    "passed but a criterion failed": {"file": "i.py", "exercise": "nivel-2", "passed": True,
                                      "criteria": [{"id": "ponto-a", "passed": False, "message": "falhou"}]},
    "passed with no criteria": {"file": "j.py", "exercise": "nivel-2", "passed": True, "criteria": []},
    "file a number": {"file": 7, "exercise": None, "passed": 1, "criteria": None},
}


def test_broken_results_render_one_error_line_each_and_never_raise():
    results = list(BROKEN.values())
    lines = render_text(results).splitlines()
    assert len(lines) == len(results)
    for line in lines:
        assert ": ERRO — resultado malformado" in line, line
    assert lines[0].startswith(report.UNKNOWN_FILE) and "(veio null em vez de um objeto)" in lines[0]
    assert lines[BROKEN_INDEX("criteria not a list")].startswith("b.py: ERRO — resultado malformado: criteria")
    assert "passed é verdadeiro, mas nem todos os critérios passaram" in lines[BROKEN_INDEX("passed but a criterion failed")]


def BROKEN_INDEX(name: str) -> int:  # noqa: N802 - reads like the table it indexes
    return list(BROKEN).index(name)


def test_broken_results_in_csv_keep_the_columns():
    results = list(BROKEN.values())
    rows = list(csv.reader(io.StringIO(render_csv(results, "nivel-2"))))
    assert len(rows) == 1 + len(results)
    assert {len(row) for row in rows} == {3 + len(NIVEL2_IDS) + 1 + len(NIVEL2_TEXTS) + len(SCORE_COLUMNS)}
    error = 3 + len(NIVEL2_IDS)
    for row in rows[1:]:
        assert row[2] == "não" and row[error].startswith("resultado malformado") and set(row[3:error]) == {""}


def test_broken_results_in_json_are_error_entries():
    results = list(BROKEN.values())
    data = json.loads(render_json(results))
    assert len(data) == len(results)
    for entry in data:
        assert entry["passed"] is False and entry["criteria"] == [] and entry["error"].startswith("resultado malformado")
        assert isinstance(entry["file"], str) and isinstance(entry["exercise"], str)


def test_normalise_gives_the_cli_an_error_for_every_broken_result():
    for name, result in BROKEN.items():
        assert "error" in normalise(result), name
    good = hostile_results()[2]
    assert "error" not in normalise(good) and normalise(good)["passed"] is True


def test_input_errors_without_criteria_or_with_odd_errors():
    results = [{"file": "a.json", "error": "versão 99 do arquivo"}, {"file": "b.json", "error": None},
               {"file": "c.json", "error": {"x": 1}}, {"file": "", "error": "sem nome"}]
    lines = render_text(results).splitlines()
    assert lines[0] == "a.json: ERRO DE ENTRADA — versão 99 do arquivo"
    assert lines[1] == "b.json: ERRO DE ENTRADA — (erro sem descrição)"
    assert lines[2].startswith("c.json: ERRO DE ENTRADA — {")
    assert lines[3] == f"{report.UNKNOWN_FILE}: ERRO DE ENTRADA — sem nome"
    assert [len(r) for r in csv.reader(io.StringIO(render_csv(results, "nivel-2")))] == [10 + len(NIVEL2_TEXTS) + len(SCORE_COLUMNS)] * 5


def test_renderers_accept_no_results_and_odd_containers():
    assert render_text([]) == "\n"
    assert json.loads(render_json([])) == []
    assert json.loads(render_json(None)) == []
    assert json.loads(render_json(({"file": "a.py", "error": "x"},)))[0]["file"] == "a.py"
    assert list(csv.reader(io.StringIO(render_csv([], "nivel-2")))) == [["file", "exercise", "passed", *NIVEL2_IDS, "error", *NIVEL2_TEXTS, *SCORE_COLUMNS]]


def test_csv_for_an_unknown_exercise_uses_the_criteria_the_results_name():
    results = [
        {"file": "a.py", "exercise": "x", "passed": False, "criteria": [{"id": "um", "passed": True, "message": ""},
                                                                           {"id": "=dois", "passed": False, "message": ""}]},
        {"file": "b.py", "exercise": "x", "passed": True, "criteria": [{"id": "tres", "passed": True, "message": ""}]},
    ]
    rows = list(csv.reader(io.StringIO(render_csv(results, "exercicio-inexistente"))))
    assert rows[0] == ["file", "exercise", "passed", "um", "'=dois", "tres", "error", *SCORE_COLUMNS]
    assert rows[1][3:6] == ["ok", "falhou", ""] and rows[2][3:6] == ["", "", "ok"]


# --- report: ordinary results render exactly as the CLI always did --------------------------------


def ordinary_results():
    return [
        {"file": "inicial.py", "exercise": "nivel-2", "passed": False, "criteria": [
            {"id": "escrita-atomica", "passed": False, "message": "Queda simulada no meio da escrita: o checkpoint.json ficou vazio.",
             "disk": {"crash": "x", "path": "checkpoint.json", "exists": True, "bytes": 0, "content": ""}},
            {"id": "ponto-a", "passed": False, "message": "Falta o ponto A."},
            {"id": "seis-campos", "passed": True, "message": "", "hint": "Use fsync."},
            {"id": "executavel", "passed": True, "message": ""},
        ]},
        {"file": "respostas.json", "exercise": "nivel-2", "passed": True,
         "criteria": [{"id": i, "passed": True, "message": ""} for i in NIVEL2_IDS]},
        {"file": "velho.json", "exercise": "nivel-2", "passed": False, "criteria": [],
         "error": "versão 99 do arquivo de respostas não é suportada (esperada: 1)"},
    ]


LEGACY_TEXT = """\
inicial.py: REPROVADO (2 de 4 critérios)
  [falhou] escrita-atomica: Queda simulada no meio da escrita: o checkpoint.json ficou vazio.
  [falhou] ponto-a: Falta o ponto A.
  [ok    ] seis-campos: Use fsync.
  [ok    ] executavel
respostas.json: APROVADO (6 de 6 critérios)
  [ok    ] diagnostico-escrita
  [ok    ] diagnostico-ponto-a
  [ok    ] escrita-atomica
  [ok    ] ponto-a
  [ok    ] seis-campos
  [ok    ] executavel
velho.json: ERRO DE ENTRADA — versão 99 do arquivo de respostas não é suportada (esperada: 1)
"""
# The written answers' columns (texto:…) were added after the move, at the end of each row; the
# student and the score (issue 18) after those, so every older column keeps its place.
LEGACY_CSV = (
    "file,exercise,passed,diagnostico-escrita,diagnostico-ponto-a,escrita-atomica,ponto-a,seis-campos,executavel,error,"
    "texto:primeira-falha,texto:segunda-falha,student,met,graded\r\n"
    "inicial.py,nivel-2,não,,,falhou,falhou,ok,ok,,,,,2,4\r\n"
    "respostas.json,nivel-2,sim,ok,ok,ok,ok,ok,ok,,,,,6,6\r\n"
    "velho.json,nivel-2,não,,,,,,,versão 99 do arquivo de respostas não é suportada (esperada: 1),,,,,\r\n"
)


def test_ordinary_text_and_csv_are_byte_for_byte_what_the_cli_printed_before():
    # Frozen from render_text/render_csv as they were in graders/cli.py before the move (CSV: plus texto:…).
    results = ordinary_results()
    assert render_text(results) == LEGACY_TEXT
    assert render_csv(results, "nivel-2") == LEGACY_CSV


def test_ordinary_json_keeps_the_contract():
    results = ordinary_results()
    assert json.loads(render_json(results)) == results
