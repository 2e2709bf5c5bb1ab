"""Issue 27: a specialist's second review of the lesson, the exercises and the grader messages.

Each numbered item, the Portuguese list and the pedagogy list, checked on the built page, on the
exercise files or on the grader sources. The resume sketch is run as code against the fake model,
from a checkpoint saved at point A and one saved at point B.
"""

from __future__ import annotations

import importlib.util
import json
import re
import tomllib
import zipfile

import pytest

from conftest import ROOT
from graders.fake_agent import TASK, script
from page_html import read_page

EXERCISES = ("quiz-sobrescrita", "nivel-1", "nivel-2")
PROTOCOL_ORDER = ["version", "task", "turns", "tokensUsed", "messages", "pendingToolUse", "createdAt", "model"]


@pytest.fixture(scope="module")
def html(site_dir):
    return (site_dir / "licao-2" / "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def lesson(site_dir):
    return read_page(site_dir / "licao-2" / "index.html")


@pytest.fixture(scope="module")
def text(lesson):
    return _flat(lesson.text)


def _flat(value: str) -> str:
    return " ".join(value.split())


def _between(text: str, start: str, end: str) -> str:
    """The body's stretch from its last `start` (the heading, after the table of contents) to `end`."""
    at = text.rindex(start)
    return text[at:text.index(end, at)]


def _plain(fragment: str) -> str:
    """The text of an HTML fragment, tags dropped and entities for quotes resolved."""
    import html as html_module

    return _flat(html_module.unescape(re.sub(r"<[^>]+>", " ", fragment)))


def _meta(exercise_id: str) -> dict:
    return tomllib.loads((ROOT / "exercises" / exercise_id / "exercise.toml").read_text(encoding="utf-8"))


def _exercise_files() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for e in EXERCISES for p in sorted((ROOT / "exercises" / e).iterdir()))


def _student_strings(exercise_id: str) -> str:
    """Everything of an exercise.toml a student can read: no TOML comments, no reviewers' notes."""
    found = []

    def walk(value, key=""):
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and key not in {"note", "id", "criterion", "question", "option", "kind",
                                                     "statement", "starter", "solution", "type", "power_loss"}:
            found.append(value)

    walk(_meta(exercise_id))
    return _flat(" ".join(found))


def _section(html: str, exercise_id: str) -> str:
    return re.search(rf'<section class="exercise" data-exercise="{exercise_id}".*?</section>', html, re.S).group(0)


def _grader_sources() -> str:
    paths = sorted((ROOT / "graders" / "judge").glob("*.py")) + [ROOT / "graders" / "demo.py"]
    return "\n".join(p.read_text(encoding="utf-8") for p in paths)


# --- 1. The resume sketch, run against the fake model -------------------------------------------


class MessagesApiError(Exception):
    """What the Messages API answers (HTTP 400) to a conversation with a tool_use left unanswered."""


class StrictModel:
    """The scripted model, refusing what the real API refuses: every assistant tool_use must be
    answered by a tool_result in the very next (user) message."""

    def __init__(self):
        self.responses = script()["responses"]
        self.calls = []

    def __call__(self, *, tools=None, messages=None):
        self.calls.append(json.loads(json.dumps(messages)))
        for i, message in enumerate(messages):
            if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
                continue
            uses = {b["id"] for b in message["content"] if b.get("type") == "tool_use"}
            following = messages[i + 1] if i + 1 < len(messages) else {}
            answered = {b.get("tool_use_id") for b in following.get("content") or [] if isinstance(b, dict)
                        and b.get("type") == "tool_result"} if following.get("role") == "user" else set()
            if uses - answered:
                raise MessagesApiError("400 invalid_request_error: tool_use ids were found without tool_result "
                                       "blocks immediately after")
        served = sum(1 for m in messages if m.get("role") == "assistant")
        return json.loads(json.dumps(self.responses[served]))


@pytest.fixture(scope="module")
def saved_points(tmp_path_factory):
    """Run the reference run_agent against the fake model and keep the checkpoint on disk at point A
    (while the first tool runs) and at point B (while the model is called the second time)."""
    import os

    spec = importlib.util.spec_from_file_location("nivel2_solution", ROOT / "exercises" / "nivel-2" / "solution.py")
    solution = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(solution)
    conversation = script()
    work = tmp_path_factory.mktemp("resume")
    seen = {}

    def call_model(*, tools=None, messages=None):
        served = sum(1 for m in messages if m.get("role") == "assistant")
        if served == 1:
            seen["B"] = (work / "checkpoint.json").read_text(encoding="utf-8")
        return json.loads(json.dumps(conversation["responses"][served]))

    def execute_tool(name, input):
        seen.setdefault("A", (work / "checkpoint.json").read_text(encoding="utf-8"))
        return conversation["tool_results"][name]

    before = os.getcwd()
    os.chdir(work)
    try:
        solution.run_agent(TASK, conversation["tools"], call_model, execute_tool)
    finally:
        os.chdir(before)
    points = {k: json.loads(v) for k, v in seen.items()}
    assert points["A"]["pendingToolUse"] is not None and points["B"]["pendingToolUse"] is None
    return points


def _sketch(lesson) -> str:
    return next(b.text for b in lesson.code_blocks if "json.load(f)" in b.text)


def _resume(sketch: str, checkpoint: dict, folder, model: StrictModel) -> dict:
    import os

    (folder / "checkpoint.json").write_text(json.dumps(checkpoint), encoding="utf-8")
    namespace = {"json": json, "call_model": model, "tools": script()["tools"]}
    before = os.getcwd()
    os.chdir(folder)
    try:
        exec(compile(sketch, "<esboço de retomada>", "exec"), namespace)
    finally:
        os.chdir(before)
    return namespace


def test_resume_sketch_from_point_b_calls_the_model_and_goes_on(lesson, saved_points, tmp_path):
    model = StrictModel()
    done = _resume(_sketch(lesson), saved_points["B"], tmp_path, model)
    assert model.calls == [saved_points["B"]["messages"]]
    assert done["response"] == script()["responses"][1]
    assert done["state"]["tokensUsed"] == saved_points["B"]["tokensUsed"] + script()["responses"][1]["usage"]["output_tokens"]
    assert done["state"]["turns"] == saved_points["B"]["turns"] == 1


def test_resume_sketch_from_point_a_stops_before_calling_the_model(lesson, saved_points, tmp_path):
    model = StrictModel()
    with pytest.raises(RuntimeError, match="Lição 3"):
        _resume(_sketch(lesson), saved_points["A"], tmp_path, model)
    assert model.calls == []


def test_calling_the_model_from_point_a_is_what_the_api_refuses(lesson, saved_points, tmp_path):
    """The control: without the pendingToolUse check, the sketch sends a dangling tool_use (a 400)."""
    sketch = _sketch(lesson)
    guard = re.search(r'^if state\["pendingToolUse"\] is not None:\n(?:[ \t]+.*\n)+', sketch, re.M)
    assert guard, "the sketch checks pendingToolUse before calling the model"
    with pytest.raises(MessagesApiError):
        _resume(sketch.replace(guard.group(0), ""), saved_points["A"], tmp_path, StrictModel())


def test_resume_box_says_why_and_what_happens_otherwise(text):
    box = _between(text, "E a retomada, como fica?", "Como salvar")
    assert "erro 400" in box and "só chama o modelo quando pendingToolUse é None" in box
    assert "a Lição 3 decide o que fazer" in box and "acrescenta o tool_result a messages antes de chamar o modelo" in box


# --- 3. version: the right option agrees with the resume code ------------------------------------


def test_a_checkpoint_without_version_is_refused_at_once_by_the_sketch(lesson, saved_points, tmp_path):
    checkpoint = {k: v for k, v in saved_points["B"].items() if k != "version"}
    model = StrictModel()
    with pytest.raises(RuntimeError, match="versão None"):
        _resume(_sketch(lesson), checkpoint, tmp_path, model)
    assert model.calls == []


def test_the_effect_questions_say_which_resume_they_imagine(lesson, saved_points, tmp_path, text):
    """The sketch stops on a missing field; the effects describe a resume that goes on with defaults,
    and both the box and the statement say so."""
    with pytest.raises(KeyError):
        _resume(_sketch(lesson), {k: v for k, v in saved_points["B"].items() if k != "tokensUsed"}, tmp_path, StrictModel())
    assert "seguisse com um valor padrão" in text and "para a retomada com KeyError" in text
    assert "segue com um valor padrão para o que faltar" in text


def test_the_version_effect_says_the_file_is_refused():
    question = next(q for q in _meta("nivel-1")["questions"] if q["id"] == "efeito-version")
    right = next(o for o in question["options"] if o.get("correct"))
    assert "Enquanto o formato for o mesmo, nada" not in _exercise_files()
    assert "recusa o arquivo já na primeira conferência" in right["text"]
    assert 'state.get(\\"version\\") != 1' in (ROOT / "exercises" / "nivel-1" / "exercise.toml").read_text(encoding="utf-8")


# --- 2. what tokensUsed counts --------------------------------------------------------------------


def test_tokens_used_is_not_context_size_nor_total_spend(text):
    assert "O gasto acumulado de tokens" not in text and "quando o contexto enche" not in text
    for said in ("a soma de usage.output_tokens de todas as respostas do modelo", "Não é o tamanho do contexto",
                 "o contexto, até a última resposta, é o input_tokens dela", "cache_read_input_tokens", "entram como tokens de entrada",
                 "Também não é o gasto total", "cada chamada cobra também a entrada"):
        assert said in text, said
    for exercise_id in EXERCISES:
        strings = _student_strings(exercise_id)
        assert "quando o contexto enche" not in strings and "gasto antigo" not in strings


# --- 4, 5, 6, 8, 9: feedback that was false or half true ------------------------------------------


def test_nivel_2_feedback_separates_a_killed_process_from_a_power_loss():
    strings = _student_strings("nivel-2")
    assert "não chegam fora de ordem" not in strings and "não adia nada" not in strings
    old = next(o for q in _meta("nivel-2")["questions"] for o in q["options"] if o["id"] == "versao-antiga")
    assert "processo morto" in old["feedback"] and "falta de energia" in old["feedback"]
    assert "nada garante" in old["feedback"]


def test_the_stop_condition_feedback_is_about_this_lessons_turn_ceiling():
    assert "conta voltas do loop, não tokens" not in _exercise_files()
    question = next(q for q in _meta("nivel-1")["questions"] if q["id"] == "efeito-tokensUsed")
    wrong = next(o for o in question["options"] if o["id"] == "contagem-zerada")
    assert wrong["text"].startswith("O teto de turnos")
    assert "orçamento" in wrong["feedback"] and "Agent SDK" in wrong["feedback"]


def test_no_distractor_says_the_model_is_paid_twice():
    assert "paga a mesma resposta do modelo duas vezes" not in _exercise_files()
    # The lesson's own timeline does say the model is called again after a crash before point A.
    question = next(q for q in _meta("nivel-2")["questions"] if q["id"] == "efeito-ponto-a")
    assert not any("duas vezes" in o["text"] or "de novo" in o["text"] for o in question["options"] if not o.get("correct"))


def test_no_grader_message_says_the_first_answer_may_be_dropped():
    sources = _grader_sources()
    assert "somando ou não a primeira resposta" not in sources and "contando ou não a primeira" not in sources
    assert "a primeira inclusive" in sources


def test_the_tokens_message_names_only_the_full_sum():
    from graders.judge import protocol

    state = {"version": 1, "task": "t", "turns": 0, "tokensUsed": 1, "messages": [{"role": "user", "content": "t"}],
             "pendingToolUse": None}
    found = " ".join(protocol.problems(state, task="t", conversation=state["messages"], tokens_allowed={57, 0}))
    assert "a primeira inclusive, é 57" in found and " ou 0" not in found


def test_a_checkpoint_left_after_the_end_is_not_called_harmless(text):
    assert "não há mais nada a retomar" not in text and "não há mais nada a retomar" not in _exercise_files()
    assert "faria um harness reiniciado refazer o último turno" in text
    assert "apague-o ou marque a tarefa como concluída" in text
    sem_final = next(o for q in _meta("nivel-2")["questions"] for o in q["options"] if o["id"] == "sem-final")
    assert "apague o checkpoint ou marque a tarefa como concluída" in sem_final["feedback"]


# --- 7. Claude Code: what is saved -----------------------------------------------------------------


def test_claude_code_comparison_says_what_each_saves(text):
    section = _between(text, "Referência de produto", "Checkpoints não são de graça")
    assert "outra granularidade" not in text
    for said in ("é o que cada um guarda", "ferramentas de edição", "bash", "sessão do Agent SDK",
                 "a conversa, não o sistema de arquivos", "O que guarda"):
        assert said in section, said


# --- 10. camelCase, EXDEV, the concurrency option ---------------------------------------------------


def test_camel_case_is_fidelity_to_the_protocol_not_portability(text):
    assert "harness escrito em qualquer linguagem" not in text
    assert "protocolo do curso, definido em JavaScript" in text and "nada a ver com portabilidade" in text


def test_exdev_is_posix_and_windows_fails_otherwise(text):
    assert "no Linux e no macOS eles falham com OSError de errno EXDEV" in text
    assert "[WinError 17]" in text


def test_the_quiz_states_its_single_process_assumption():
    question = _meta("quiz-sobrescrita")["questions"][0]
    assert "Só um processo do agente grava este arquivo." in question["prompt"]
    concurrency = next(o for o in question["options"] if o["id"] == "concorrencia")
    assert "A pergunta diz que só um processo grava" in concurrency["feedback"]


# --- the Portuguese list ----------------------------------------------------------------------------


def test_one_term_per_concept_across_page_exercises_and_messages(text, site_dir):
    home = _flat(read_page(site_dir / "index.html").text)
    exercises_text = " ".join(_student_strings(e) for e in EXERCISES)
    messages = _grader_sources()
    everything = " ".join((text, home, exercises_text, messages))
    for avoided in ("Contra o processo morto", "Contra o **processo morto**", "A exposição é", " zera ", "troca de nome",
                    "resumo da conversa", "resumir a conversa", "volta a contar", "Isso:", "Isso.", "novinha",
                    "seus exercícios", "usam a API de Mensagens como dicionários", "que o esvaziou"):
        assert avoided not in everything, avoided
    # Systems text says "diretório": the lesson, the exercises and the judge's messages.
    files = _flat(" ".join(p.read_text(encoding="utf-8") for e in ("nivel-1", "nivel-2")
                           for p in (ROOT / "exercises" / e).glob("*") if p.suffix in {".md", ".py"}))
    assert "troca de nome" not in files and "Isso:" not in files
    for where, body in (("lição", text), ("exercícios", exercises_text + files), ("mensagens", messages)):
        assert not re.search(r"\bpastas?\b", body), where
    for said in ("Se o processo for morto", "O risco está na janela entre A e B", "trunca (esvazia)",
                 "representam as respostas da API de Mensagens como dicionários", "a contagem volta a zero",
                 "os.fsync no diretório", "essa substituição é atômica"):
        assert said in text, said
    assert "Certo:" in exercises_text and "compactação" in exercises_text
    assert "da renomeação de" in messages


def test_praise_is_stripped_as_certo_once_per_criterion():
    from graders.judge.answers import grade_answers

    right = {q["id"]: next(o["id"] for o in q["options"] if o.get("correct"))
             for q in _meta("nivel-2")["questions"]}
    hint = grade_answers("nivel-2", right)["diagnostico-escrita"].hint
    assert hint.startswith("Certo:") and hint.count("Certo") == 1


# --- pedagogy ------------------------------------------------------------------------------------------


def test_the_javascript_to_python_bridge_is_on_the_page(html):
    table = next(t for t in re.findall(r"<table>.*?</table>", html, re.S) if "fs.renameSync" in t)
    rows = {_plain(cells[0]): _plain(cells[1]) for cells in
            (re.findall(r"<td>(.*?)</td>", row, re.S) for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)) if cells}
    pairs = {"fs.writeFileSync": "open(", "fs.renameSync": "os.replace(", "JSON.parse": "json.load(",
             "fs.fsyncSync": "os.fsync("}
    for javascript, python in pairs.items():
        row = next((r for r in rows if r.startswith(javascript)), None)
        assert row and python in rows[row], (javascript, rows)


def test_durability_is_an_optional_block_after_the_core(html, lesson):
    details = re.search(r'<details class="info">\s*<summary>Para ir além \(opcional\).*?</details>', html, re.S)
    assert details, "no collapsible “Para ir além” block"
    inside = details.group(0)
    for detail in ("os.fsync", "F_FULLFSYNC", "EXDEV", "WinError 17", "PermissionError", "os.name"):
        assert detail in inside, detail
    outside = html.replace(inside, "")
    main_text = outside[outside.index('id="como-salvar"'):outside.index('id="claude-code"')]
    for detail in ("F_FULLFSYNC", "EXDEV", "WinError"):
        assert detail not in main_text, detail
    core = next(b.text for b in lesson.code_blocks if "os.replace(tmp_path, final_path)" in b.text and "fsync" not in b.text)
    assert "os.makedirs(directory, exist_ok=True)" in core
    assert html.index("Depois: temporário") < html.index("Para ir além (opcional)")


def test_nivel_1_effects_follow_the_protocol_order_with_neutral_titles(html):
    section = _section(html, "nivel-1")
    asked = re.findall(r'data-question="efeito-([A-Za-z]+)"', section)
    assert asked == PROTOCOL_ORDER
    legends = [_plain(x) for x in re.findall(r"<legend>(.*?)</legend>", section, re.S)][1:]
    assert [l.split(" — ")[0] for l in legends] == [f"Efeito {n}" for n in range(1, 9)]
    assert all(re.search(rf"só {field}\b", legend) for legend, field in zip(legends, PROTOCOL_ORDER)), legends
    titles = [_plain(x) for x in re.findall(r'<span class="exercise-criterion__label">(.*?)</span>', section, re.S)]
    assert titles[1:9] == [f"Efeito {n}" for n in range(1, 9)]


def test_the_statements_are_about_the_task_and_the_grader_is_a_note(html, text):
    statement = _between(text, "Um colega escreveu o run_agent", "Como a verificação funciona")
    for internal in ("kernel", "Pyodide", "corretor", "linha de comando"):
        assert internal not in statement, internal
    note = re.search(r'<details class="note">\s*<summary>Como a verificação funciona</summary>.*?</details>', html, re.S)
    assert note and "kernel do sistema operacional" in note.group(0) and "camada de arquivos do Pyodide" in note.group(0)


@pytest.mark.parametrize("exercise_id", ["nivel-1", "nivel-2"])
def test_the_written_explanation_comes_before_the_choices(html, text, exercise_id):
    section = _section(html, exercise_id)
    first_box = section.index('class="exercise-writing"')
    fieldsets = [m.start() for m in re.finditer(r'<fieldset class="exercise-question"', section)]
    if exercise_id == "nivel-1":
        # The boxes appear for the fields marked missing, right below that list, before any effect question.
        assert fieldsets[0] < first_box < fieldsets[1]
    else:
        assert first_box < fieldsets[0]
    assert "Nos exercícios, a sua explicação escrita vem antes das alternativas." in text


# --- notes on every option, never shipped --------------------------------------------------------------


def test_every_option_has_a_note_saying_right_or_wrong():
    for exercise_id in EXERCISES:
        for question in _meta(exercise_id).get("questions", []):
            for option in question["options"]:
                note = option.get("note", "")
                assert len(note) >= 15, (exercise_id, question["id"], option["id"])
                assert note.startswith("Certa" if option.get("correct") else "Errada"), (question["id"], option["id"])


def _notes() -> list[str]:
    return [o["note"] for e in EXERCISES for q in _meta(e).get("questions", []) for o in q["options"]]


def test_notes_never_reach_the_site(site_dir):
    with zipfile.ZipFile(site_dir / "assets" / "python" / "lesson.zip") as bundle:
        for exercise_id in EXERCISES:
            shipped = tomllib.loads(bundle.read(f"exercises/{exercise_id}/exercise.toml").decode("utf-8"))
            from sitebuild.exercise_notes import without_notes

            assert shipped == without_notes(_meta(exercise_id))  # everything else ships unchanged
            assert "note" not in json.dumps(shipped).replace('"notes"', "")
    # No note in any page, script, stylesheet or bundle of the site (probe with distinctive notes).
    probes = sorted({n for n in _notes() if len(n) > 40})[:12]
    for path in site_dir.rglob("*"):
        if path.is_file() and path.suffix in {".html", ".js", ".mjs", ".css", ".json", ".xml", ".zip", ".toml"}:
            body = path.read_bytes()
            if path.suffix == ".zip":
                with zipfile.ZipFile(path) as z:
                    body = b"".join(z.read(n) for n in z.namelist() if not n.endswith(".wasm"))
            decoded = body.decode("utf-8", "replace")
            for probe in probes:
                assert probe not in decoded, (path, probe)


def test_a_note_the_build_cannot_strip_stops_the_build():
    from sitebuild.exercise_notes import NoteError, strip_notes

    fine = 'id = "a"\nnote = "Certa: \\"w\\" trunca."\ntext = "x"\n'
    assert strip_notes(fine) == 'id = "a"\ntext = "x"\n'
    with pytest.raises(NoteError):
        strip_notes('id = "a"\nnote = """Certa:\nduas linhas."""\n')
