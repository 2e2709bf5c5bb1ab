"""Messages a student can act on: blank answers named by their title, one block per question, the
common runtime errors explained in Portuguese with Python's own line kept (the CLI says the same)."""

from __future__ import annotations

import re

import pytest

from graders import exercises, playground
from graders.judge import answers, errors


def test_a_blank_answer_names_the_question_by_its_title_not_its_whole_text():
    for exercise in exercises.EXERCISE_IDS:
        titles = {c["id"]: c["title"] for c in exercises.load(exercise)["criteria"]}
        for criterion, result in answers.grade_answers(exercise, {}).items():
            assert not result.passed
            for question in (q for q in exercises.questions(exercise) if q["criterion"] == criterion):
                assert " ".join(question["prompt"].split()) not in result.message
            for line in re.split(r"(?<=\.) (?=Sem resposta)", result.message):
                assert line.startswith("Sem resposta na pergunta") and f"“{titles[criterion]}”" in line, line
                assert len(line) < 120, line


def test_two_wrong_answers_of_one_criterion_are_two_blocks():
    wrong = {q["id"]: next(o["id"] for o in q["options"] if not o.get("correct")) for q in exercises.questions("nivel-2")}
    for criterion, result in answers.grade_answers("nivel-2", wrong).items():
        asked = [q for q in exercises.questions("nivel-2") if q["criterion"] == criterion]
        blocks = re.split(r" (?=Pergunta \d+: )", result.message)
        assert len(blocks) == len(asked) == 2
        for number, (block, question) in enumerate(zip(blocks, asked), 1):
            assert block.startswith(f"Pergunta {number}: ")
            assert next(o["feedback"] for o in question["options"] if o["id"] == wrong[question["id"]]) in block


ERRORS = {
    "NameError": ("x = nome_que_nao_existe", "nome_que_nao_existe", "não existe"),
    "UnboundLocalError": ("def f():\n    y = x\n    x = 1\nf()", "a variável `x`", "antes de receber um valor"),
    "KeyError": ("{}['falta']", "chave 'falta'", "dicionário"),
    "TypeError": ("1 + 'a'", "tipo", "não aceita"),
    "AttributeError": ("{}.foo", "`dict`", "`foo`"),
    "IndexError": ("[][3]", "lista", "elementos"),
    "ValueError": ("int('x')", "valor", "não aceita"),
    "JSONDecodeError": ("import json\njson.loads('')", "JSON", "vazio"),
    "FileNotFoundError": ("open('nao-existe.json')", "`nao-existe.json`", "não existe"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_common_runtime_errors_are_explained_in_portuguese_with_pythons_line(name):
    statement, *expected = ERRORS[name]
    try:
        exec(compile(statement, "<aluno>", "exec"), {})
    except Exception as exc:  # noqa: BLE001 - the error under test
        report = {"kind": "exception", "exc_type": type(exc).__name__, "exc_text": str(exc),
                  "frames": [[3, "run_agent", "linha do aluno"]]}
    else:
        pytest.fail(f"{statement!r} raised nothing")
    said = errors.describe(report)
    assert said.startswith(f"{name}: {report['exc_text']}")  # Python's own line, kept
    for words in expected:
        assert words in said, said
    assert "Em português:" in errors.traceback_text(report)


def test_executar_says_execute_again_after_a_syntax_error():
    run = playground.run("nivel-2", "def run_agent(task, tools, call_model, execute_tool)\n    pass\n")
    assert "Corrija e execute de novo" in run["error"] and "verifique" not in run["error"]
