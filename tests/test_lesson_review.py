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
    """What the Messages API answers (HTTP 400) to a request it refuses."""


class StrictModel:
    """The scripted model, refusing what the real API refuses: a conversation that ends with the
    assistant's turn is a prefill, which Claude 4.6+ models refuse with a 400 (Anthropic's migration
    guide, "Prefill removal"); and every assistant tool_use must be answered by a tool_result in the
    very next (user) message."""

    def __init__(self):
        self.responses = script()["responses"]
        self.calls = []

    def __call__(self, *, tools=None, messages=None):
        self.calls.append(json.loads(json.dumps(messages)))
        if messages and messages[-1].get("role") == "assistant":
            raise MessagesApiError("400 invalid_request_error: This model does not support assistant message "
                                   "prefill. The conversation must end with a user message.")
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


def _savers(lesson) -> dict[str, str]:
    """The lesson's two save_checkpoint that do not overwrite in place: the core one and the one with
    os.fsync (Para ir além)."""
    found = {"temporário": None, "fsync": None}
    for block in lesson.code_blocks:
        if "def save_checkpoint(state, directory=" in block.text:
            found["fsync" if "os.fsync" in block.text else "temporário"] = block.text
    assert all(found.values()), found
    return found


def _loop(lesson) -> str:
    return next(b.text for b in lesson.code_blocks if b.text.startswith('while response["stop_reason"] == "tool_use":'))


def _in(folder, source: str, namespace: dict, name: str) -> dict:
    """Run a code block of the page, for real, with `folder` as the current directory."""
    import os

    before = os.getcwd()
    os.chdir(folder)
    try:
        exec(compile(source, name, "exec"), namespace)
    finally:
        os.chdir(before)
    return namespace


def _save_with_the_lesson(lesson, checkpoint: dict, folder, saver: str = "temporário") -> None:
    """Write `checkpoint` with the lesson's own save_checkpoint, where the lesson puts it."""
    code = _in(folder, _savers(lesson)[saver], {}, "<save_checkpoint da lição>")
    _in(folder, "save_checkpoint(checkpoint)", {**code, "checkpoint": checkpoint}, "<gravação>")


def _resume(sketch: str, checkpoint: dict, folder, model: StrictModel, lesson=None) -> dict:
    if lesson is not None:
        _save_with_the_lesson(lesson, checkpoint, folder)
    namespace = {"json": json, "call_model": model, "tools": script()["tools"]}
    return _in(folder, sketch, namespace, "<esboço de retomada>")


def test_resume_sketch_from_point_b_calls_the_model_and_goes_on(lesson, saved_points, tmp_path):
    model = StrictModel()
    done = _resume(_sketch(lesson), saved_points["B"], tmp_path, model, lesson)
    assert model.calls == [saved_points["B"]["messages"]]
    assert done["response"] == script()["responses"][1]
    assert done["state"]["tokensUsed"] == saved_points["B"]["tokensUsed"] + script()["responses"][1]["usage"]["output_tokens"]
    assert done["state"]["turns"] == saved_points["B"]["turns"] == 1


def test_resume_sketch_from_point_a_stops_before_calling_the_model(lesson, saved_points, tmp_path):
    model = StrictModel()
    with pytest.raises(RuntimeError, match="Lição 3"):
        _resume(_sketch(lesson), saved_points["A"], tmp_path, model, lesson)
    assert model.calls == []


def test_calling_the_model_from_point_a_is_what_the_api_refuses(lesson, saved_points, tmp_path):
    """The control: without the pendingToolUse check, the sketch sends a dangling tool_use (a 400)."""
    sketch = _sketch(lesson)
    guard = re.search(r'^if state\["pendingToolUse"\] is not None:\n(?:[ \t]+.*\n)+', sketch, re.M)
    assert guard, "the sketch checks pendingToolUse before calling the model"
    with pytest.raises(MessagesApiError):
        _resume(sketch.replace(guard.group(0), ""), saved_points["A"], tmp_path, StrictModel(), lesson)


def test_resume_box_says_why_and_what_happens_otherwise(text):
    box = _between(text, "E a retomada, como fica?", "Como salvar")
    assert "só chama o modelo quando pendingToolUse é None" in box
    assert "a Lição 3 decide o que fazer" in box and "acrescenta o tool_result a messages antes de chamar o modelo" in box


def test_the_400_named_is_the_prefill_refusal_not_the_missing_result(text, html):
    """Issue 41, 1: a conversation that ends with the assistant's turn is a prefill; the message about
    a tool_use without its tool_result is another case (a following message that lacks it)."""
    box = _between(text, "E a retomada, como fica?", "Como salvar")
    assert "cada bloco tool_use precisa do seu tool_result na mensagem seguinte)" not in box
    assert "prefill" in box and "Claude 4.6" in box and "erro 400" in box
    assert "o que falta ali é o resultado da ferramenta, não uma continuação da resposta" in box
    assert 'href="https://platform.claude.com/docs/en/about-claude/models/migration-guide"' in html


def test_a_point_a_checkpoint_sent_as_is_is_a_prefill(saved_points):
    """The StrictModel refuses a point-A conversation as the API does: it ends with the assistant."""
    with pytest.raises(MessagesApiError, match="prefill"):
        StrictModel()(tools=script()["tools"], messages=saved_points["A"]["messages"])


# --- 12. The resume sketch reads what the lesson's own saver wrote --------------------------------------


def _run_the_lessons_loop(lesson, folder, saver: str, die_in_tool: str | None = None) -> dict:
    """The lesson's save_checkpoint and two-save-point loop, run for real in `folder` against the
    scripted model; `die_in_tool` stops the process (an exception) while that tool runs."""
    conversation = script()

    def call_model(*, tools=None, messages=None):
        served = sum(1 for m in messages if m.get("role") == "assistant")
        return json.loads(json.dumps(conversation["responses"][served]))

    def execute_tool(name, input):
        if name == die_in_tool:
            raise SystemExit("processo morto durante a ferramenta")
        return conversation["tool_results"][name]

    code = _in(folder, _savers(lesson)[saver], {}, "<save_checkpoint da lição>")
    state = {"version": 1, "task": TASK, "turns": 0, "tokensUsed": 0,
             "messages": [{"role": "user", "content": TASK}], "pendingToolUse": None}
    response = call_model(tools=conversation["tools"], messages=state["messages"])
    namespace = {**code, "state": state, "response": response, "tools": conversation["tools"],
                 "call_model": call_model, "execute_tool": execute_tool}
    try:
        _in(folder, _loop(lesson), namespace, "<loop da lição>")
    except SystemExit:
        pass
    return namespace["state"]


@pytest.mark.parametrize("saver", ["temporário", "fsync"])
def test_the_sketch_reads_what_the_lessons_loop_saved(lesson, tmp_path, saver):
    finished = _run_the_lessons_loop(lesson, tmp_path, saver)
    assert finished["turns"] == 2 and finished["pendingToolUse"] is None
    model = StrictModel()
    resumed = _resume(_sketch(lesson), finished, tmp_path, model)  # no write: only what the loop left
    assert model.calls == [finished["messages"]]
    assert resumed["state"]["turns"] == finished["turns"]
    # The file is B of the last turn, saved before the final model call: the resume makes that call
    # again (issue 41, 11: only the final call is redone) and counts its tokens as the loop did.
    assert resumed["response"] == model.responses[2] and resumed["state"]["tokensUsed"] == finished["tokensUsed"]


@pytest.mark.parametrize("saver", ["temporário", "fsync"])
def test_the_sketch_stops_on_the_point_a_the_lessons_loop_left(lesson, tmp_path, saver):
    second_tool = script()["responses"][1]["content"][-1]["name"]
    _run_the_lessons_loop(lesson, tmp_path, saver, die_in_tool=second_tool)
    model = StrictModel()
    with pytest.raises(RuntimeError, match="Lição 3"):
        _resume(_sketch(lesson), {}, tmp_path, model)
    assert model.calls == []


def test_a_sketch_reading_another_path_would_not_find_the_lessons_file(lesson, tmp_path):
    """The control: the path the sketch read before issue 41 is not where the lesson's saver writes."""
    _run_the_lessons_loop(lesson, tmp_path, "temporário")
    sketch = _sketch(lesson)
    assert 'open("checkpoints/checkpoint.json"' in sketch
    with pytest.raises(FileNotFoundError):
        _resume(sketch.replace('open("checkpoints/checkpoint.json"', 'open("checkpoint.json"'), {}, tmp_path, StrictModel())


# --- 3. version: the right option agrees with the resume code ------------------------------------


def test_a_checkpoint_without_version_is_refused_at_once_by_the_sketch(lesson, saved_points, tmp_path):
    checkpoint = {k: v for k, v in saved_points["B"].items() if k != "version"}
    model = StrictModel()
    with pytest.raises(RuntimeError, match="versão None"):
        _resume(_sketch(lesson), checkpoint, tmp_path, model, lesson)
    assert model.calls == []


@pytest.mark.parametrize("field", ["task", "turns", "tokensUsed", "messages", "pendingToolUse"])
@pytest.mark.parametrize("point", ["A", "B"])
def test_the_sketch_checks_every_field_before_anything_runs(lesson, saved_points, tmp_path, field, point):
    """Issue 41, 2: a missing field stops the sketch, naming the field, before the model is called
    (before this issue, a missing task went unnoticed and a missing turns broke only after the call)."""
    model = StrictModel()
    with pytest.raises(RuntimeError, match=f"checkpoint sem {field}:"):
        _resume(_sketch(lesson), {k: v for k, v in saved_points[point].items() if k != field}, tmp_path, model, lesson)
    assert model.calls == []


def test_the_effect_questions_say_which_resume_they_imagine(text):
    """The sketch stops on a missing field; the effects describe a resume that goes on with defaults,
    and both the box and the statement say so."""
    assert "seguisse com um valor padrão" in text and "para a retomada com KeyError" not in text
    assert "confere todos os campos antes de chamar o modelo ou de rodar qualquer ferramenta" in text
    assert "segue com um valor padrão para o que faltar" in text
    # Efeito 5's right option ("o modelo recebe só o pedido inicial") follows from the stated default.
    assert "sem messages, uma conversa nova só com o pedido de task" in text


def test_the_version_effect_says_the_file_is_refused():
    question = next(q for q in _meta("nivel-1")["questions"] if q["id"] == "efeito-version")
    right = next(o for o in question["options"] if o.get("correct"))
    assert "Enquanto o formato for o mesmo, nada" not in _exercise_files()
    assert "recusa o arquivo já na primeira conferência" in right["text"]
    assert 'state.get(\\"version\\") != 1' in (ROOT / "exercises" / "nivel-1" / "exercise.toml").read_text(encoding="utf-8")


# --- 2. what tokensUsed counts --------------------------------------------------------------------


def test_tokens_used_is_not_context_size_nor_total_spend(text):
    assert "quando o contexto enche" not in text
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
    # Issue 41, 11: B of the last turn already holds the last tool_result; a restart redoes only the
    # final model call (test_the_sketch_reads_what_the_lessons_loop_saved runs it).
    assert "refazer o último turno" not in text and "refaria o último turno" not in _exercise_files()
    assert "faria um harness reiniciado chamar o modelo de novo" in text and "só a chamada final se repete" in text
    assert "apague-o ou marque a tarefa como concluída" in text
    sem_final = next(o for q in _meta("nivel-2")["questions"] for o in q["options"] if o["id"] == "sem-final")
    assert "apague o checkpoint ou marque a tarefa como concluída" in sem_final["feedback"]
    assert "chamaria o modelo de novo" in sem_final["feedback"]


def test_tokens_used_has_one_purpose_the_seeds_spending_counter(text):
    """Issue 41, 8: the field is the seed's "gasto acumulado de tokens"; the course's threshold is a
    spending heuristic on it, and a compaction by context size reads the last reply instead."""
    field = _between(text, "tokensUsed O gasto acumulado", "messages A cena inteira")
    assert "É um contador de gasto" in field and "regra prática" in field
    assert "não uma medida de quanto do contexto está ocupado" in field
    assert "lê esses números da última resposta" in field
    assert "é comparado com este número" not in text


# --- 7. Claude Code: what is saved -----------------------------------------------------------------


def test_claude_code_comparison_says_what_each_saves(text):
    section = _between(text, "Referência de produto", "Checkpoints não são de graça")
    assert "outra granularidade" not in text
    for said in ("ferramentas de edição", "bash", "sessão do Agent SDK", "O que guarda",
                 "Sessions persist the conversation, not the filesystem"):
        assert said in section, said


def test_claude_code_checkpoints_go_with_the_conversation_and_rewind_restores_either(text, html):
    """Issue 41, 5: Claude Code saves checkpoints with the conversation, and /rewind restores code,
    conversation or both (its checkpointing docs); the takeaway stays the seed's."""
    section = _between(text, "Referência de produto", "Checkpoints não são de graça")
    recap = _between(text, "Recapitulação", "Anterior:")
    assert "A diferença principal não é a frequência" not in text and "é o que cada um guarda" not in text
    assert "salvo junto com a conversa" in section and "restaura o código, a conversa ou os dois" in section
    assert "salvos junto com a conversa" in section  # the table row
    assert "/rewind (o código, a conversa ou os dois)" in recap
    assert "quão fino cortar um checkpoint, e com que frequência gravá-lo, dependem da finalidade dele" in section
    # Issue 41, 22: the Agent SDK sessions page is cited like the other sources.
    assert 'href="https://code.claude.com/docs/en/agent-sdk/sessions"' in html
    assert section.count("sessão do Agent SDK") == 1


# --- 10. camelCase, EXDEV, the concurrency option ---------------------------------------------------


def test_camel_case_is_fidelity_to_the_protocol_not_portability(text):
    assert "harness escrito em qualquer linguagem" not in text
    assert "protocolo do curso, definido em JavaScript" in text and "nada a ver com portabilidade" in text


def test_exdev_is_posix_and_windows_fails_otherwise(text):
    assert "no Linux e no macOS eles falham com OSError de errno EXDEV" in text
    # Issue 41, 3: glibc's strerror says "Invalid cross-device link", macOS's libc "Cross-device link".
    assert "“Invalid cross-device link” no Linux, com a glibc, e “Cross-device link” no macOS" in text
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


# --- Issue 41: a third review ------------------------------------------------------------------------


def _in_place_verdict():
    """The nivel-2 judge on the lesson's loop saving in place (the starter's flaw), no code run."""
    from graders.judge.nivel2 import judge

    from judge.tracebuilder import run_agent

    return judge(run_agent(save=lambda b, s: b.save_in_place(s)).trace())


def test_the_graders_message_for_a_0_byte_file_names_the_error_where_it_arises():
    """Issue 41, 4: json.loads on a str never raises UnicodeDecodeError, and an empty file has no
    character to cut: the message names JSONDecodeError from json.loads, nothing else."""
    results, judged = _in_place_verdict()
    empty = [m for c, m in judged.outcomes.values() if c == "escrita-atomica" and "vazio (0 bytes)" in m]
    assert empty
    for message in empty:
        assert "o texto lido seria vazio, e json.loads lançaria JSONDecodeError" in message
        assert "UnicodeDecodeError" not in message
    assert "JSONDecodeError ou UnicodeDecodeError" not in _grader_sources()


def test_the_timeline_names_the_error_of_each_broken_file_too():
    """The page's and the report's timeline show each broken file with the same words as the message."""
    from graders.judge import timeline

    _, judged = _in_place_verdict()
    described = timeline.describe(judged)
    broken = [d for d in described["disks"] if d["exists"] and d["json"] is None]
    assert broken and all(d["fails"] for d in broken)
    assert {d["fails"] for d in broken if d["bytes"] == 0} == {"o texto lido seria vazio, e json.loads lançaria JSONDecodeError"}
    assert all(d["fails"] == "" for d in described["disks"] if d["json"] is not None)
    script = (ROOT / "docs" / "assets" / "javascripts" / "lesson" / "timeline.js").read_text(encoding="utf-8")
    assert "disk.fails" in script and "json.loads falharia" not in script


def test_a_cut_inside_a_character_is_named_at_the_reading_not_at_json_loads():
    from graders.judge.reading import load_failure

    text = json.dumps({"task": "Classificação"}, ensure_ascii=False).encode("utf-8")
    cut = text[:text.index("ç".encode("utf-8")) + 1]  # one byte of the two of "ç"
    with pytest.raises(UnicodeDecodeError):
        cut.decode("utf-8")  # what open(..., encoding="utf-8").read() meets, before json.loads
    said = load_failure(cut)
    assert "leitura do arquivo como texto UTF-8 lançaria UnicodeDecodeError" in said and "termina no meio" in said
    assert "json.loads lançaria" not in said
    assert load_failure(b"\xff" + text) .count("bytes que não são UTF-8") == 1
    assert load_failure(text[:5]) == "json.loads lançaria JSONDecodeError"
    assert load_failure(text) == ""


def test_the_quiz_has_a_wrong_option_about_the_process_dying_too():
    """Issue 41, 14: the paragraph before the quiz speaks of the process dying; the right option must
    not be the only one that does."""
    options = _meta("quiz-sobrescrita")["questions"][0]["options"]
    dying = [o for o in options if "processo morrer" in o["text"]]
    assert len(dying) >= 2 and any(not o.get("correct") for o in dying)
    right = next(o for o in options if o.get("correct"))
    assert "UnicodeDecodeError" not in right["feedback"] and "JSONDecodeError" in right["feedback"]
    assert "só ASCII" in right["feedback"]


def test_the_orphan_call_effect_covers_the_first_turn():
    """Issue 41, 15: in the first turn there is no checkpoint at all."""
    question = next(q for q in _meta("nivel-2")["questions"] if q["id"] == "efeito-ponto-a")
    right = next(o for o in question["options"] if o.get("correct"))
    assert "no primeiro, nada" in right["text"] and "no primeiro turno, não há checkpoint nenhum" in right["feedback"]


def test_parallel_tool_use_is_disabled_or_handled(text):
    """Issue 41, 7: by default the model may ask for several tools in one reply."""
    note = _between(text, "Um bloco tool_use por turno", "Quando salvar")
    assert "por padrão, o modelo pode pedir várias ferramentas numa mesma resposta" in note
    assert 'tool_choice={"type": "auto", "disable_parallel_tool_use": True}' in note
    assert "todos os resultados entram juntos, na mesma mensagem user" in note


def test_saving_only_at_a_is_taught_too(text):
    """Issue 41, 21: objective 2 asks about saving at either point alone."""
    box = _between(text, "Só o B basta? Não.", "E a retomada, como fica?")
    assert "E só o A também não basta" in box and "toda queda parece uma chamada órfã" in box


def test_durability_names_point_a_and_the_new_directory(text):
    """Issue 41, 6 and 10: point A must be durable before the tool runs; the first save also creates
    checkpoints/, whose entry in the parent needs one fsync."""
    beyond = _between(text, "Para ir além (opcional)", "Por que os.replace e não os.rename?")
    assert "completa, mas atrasada" not in text
    assert "precisa estar garantido no disco antes de execute_tool rodar" in beyond
    assert "Um terceiro fsync, uma vez só." in beyond and "os.fsync no diretório-pai" in beyond


def test_the_version_field_says_which_resume_goes_on_blind(text):
    """Issue 41, 9: the lesson's own resume refuses such a file; only one that does not check reads on."""
    field = _between(text, "version O número de versão", "task A tarefa original")
    assert "em vez de recusar o arquivo e parar com um erro claro, ela segue lendo às cegas" not in field
    assert "recusa o arquivo logo na primeira conferência" in field and "uma que não conferisse" in field


def test_the_portuguese_of_the_third_review(text):
    for before, after in (("A caixa das chaves", "A grafia das chaves (camelCase ou snake_case)"),
                          ("Não é que um detalhe se perdeu", "Não é que um detalhe tenha se perdido"),
                          ("dependem de para que ele serve", "dependem da finalidade dele"),
                          ("não precisa dela", "não precisa disso"),
                          ("protege contra o processo morto", "protege contra a morte do processo")):
        assert before not in text and after in text, after


def test_the_intended_departures_from_the_seed_are_recorded_for_reviewers():
    """Issue 41, 23: the next reviewer sees these as decisions, in the reviewers' notes."""
    source = (ROOT / "exercises" / "nivel-1" / "exercise.toml").read_text(encoding="utf-8")
    notes = source[source.index("# Intended departures from the seed"):source.index("title = ")]
    assert "`turns`" in notes and "tarde" in notes and "`tokensUsed`" in notes and "gasto acumulado" in notes
    assert all(line.startswith("#") for line in notes.splitlines() if line.strip())
