"""The built lesson page covers the seed, in Portuguese, with Python that compiles."""

from __future__ import annotations

import ast
import json
import tomllib

import pytest

from conftest import ROOT
from page_html import read_page

PROTOCOL_KEYS = ["version", "task", "turns", "tokensUsed", "messages", "pendingToolUse"]
SOURCES = [
    "https://www.anthropic.com/engineering/multi-agent-research-system",
    "https://code.claude.com/docs/en/checkpointing",
    "https://www.anthropic.com/engineering/building-effective-agents",
]
# Section id -> words its heading must contain (the seed's sections, in its order).
SECTIONS = {
    "cena-em-memoria": "memória",
    "seis-campos": "seis campos",
    "dois-pontos": "dois pontos de gravação",
    "como-salvar": "sobrescrever no lugar",
    "quiz-sobrescrita": "sobrescrever no lugar",
    "claude-code": "Claude Code",
    "custo": "não são de graça",
    "recapitulacao": "Recapitulação",
    "exercicios": "Exercícios",
    "nivel-1": "Nível 1",
    "nivel-2": "Nível 2",
    "fontes": "Fontes",
}


@pytest.fixture(scope="module")
def lesson(site_dir):
    return read_page(site_dir / "licao-2" / "index.html")


@pytest.fixture(scope="module")
def home(site_dir):
    return read_page(site_dir / "index.html")


def exercise_meta(exercise_id):
    return tomllib.loads((ROOT / "exercises" / exercise_id / "exercise.toml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("section_id, words", SECTIONS.items())
def test_every_seed_section_is_on_the_page(lesson, section_id, words):
    assert section_id in lesson.headings, f"missing section #{section_id}"
    assert words.lower() in lesson.headings[section_id].lower()


def test_sections_follow_the_seed_order(lesson):
    order = [h for h in lesson.headings if h in SECTIONS]
    assert order == list(SECTIONS)


@pytest.mark.parametrize("box", ["Objetivos de aprendizado", "Pré-requisitos"])
def test_objectives_and_prerequisites(lesson, box):
    assert box in lesson.text


@pytest.mark.parametrize("key", PROTOCOL_KEYS)
def test_each_field_is_explained_with_what_breaks_without_it(lesson, site_dir, key):
    assert f"campo-{key}" in lesson.ids, f"no definition for {key}"
    html = (site_dir / "licao-2" / "index.html").read_text(encoding="utf-8")
    definition = html.split(f'id="campo-{key}"', 1)[1].split("</dd>", 1)[0]
    assert "Sem ele:" in definition, f"{key}: what breaks on resume is not said"


def test_protocol_sample_has_exactly_the_six_keys(lesson):
    for block in lesson.code_blocks:
        tree = ast.parse(block.text)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
                keys = [k.value for k in node.value.keys if isinstance(k, ast.Constant)]
                if "pendingToolUse" in keys:
                    assert keys == PROTOCOL_KEYS
                    return
    pytest.fail("no sample builds the state dict")


@pytest.mark.parametrize("url", SOURCES)
def test_each_source_is_linked(lesson, url):
    assert url in lesson.links


def test_sources_are_quoted(lesson):
    for quote in (
        "deterministic safeguards like retry logic and regular checkpoints",
        "checkpointing automatically captures the state of your code before each user prompt.",
        "Every user prompt creates a new checkpoint",
        "you should consider adding complexity only when it demonstrably improves outcomes.",
    ):
        assert quote in lesson.text


def test_code_samples_are_python_and_compile(lesson):
    assert len(lesson.code_blocks) >= 6
    for block in lesson.code_blocks:
        assert block.language == "python", f"non-Python sample: {block.text[:60]!r}"
        compile(block.text, block.title or "<lesson sample>", "exec")


def test_samples_teach_the_python_idioms(lesson):
    code = "\n".join(b.text for b in lesson.code_blocks)
    for idiom in (
        "os.replace(",
        "json.dumps(",
        "os.makedirs(directory, exist_ok=True)",
        'response["stop_reason"]',
        '(response.get("usage") or {}).get("output_tokens") or 0',
        "os.fsync(folder)",
    ):
        assert idiom in code
    assert 'response.get("usage", {})' not in code  # not the `?.` it claims to be when usage is None
    for javascript in ("fs.", "JSON.stringify", "const ", "await "):
        assert javascript not in code
    assert "Windows" in lesson.text and "os.rename" in lesson.text


def test_point_a_is_saved_before_the_tool_runs(lesson):
    loop = next(b.text for b in lesson.code_blocks if b.text.startswith("while "))
    pending = loop.index('state["pendingToolUse"] = {')
    save_a = loop.index("save_checkpoint(state)", pending)
    tool = loop.index("execute_tool(")
    reset = loop.index('state["pendingToolUse"] = None')
    save_b = loop.index("save_checkpoint(state)", reset)
    assert pending < save_a < tool < reset < save_b


@pytest.mark.parametrize("exercise_id", ["nivel-1", "nivel-2"])
def test_starter_code_comes_from_exercises(lesson, exercise_id):
    path = f"exercises/{exercise_id}/starter.py"
    shown = [b for b in lesson.code_blocks if b.title == path]
    assert len(shown) == 1, f"{path} is not included on the page"
    assert shown[0].text == (ROOT / path).read_text(encoding="utf-8")


@pytest.mark.parametrize("exercise_id", ["quiz-sobrescrita", "nivel-1", "nivel-2"])
def test_exercise_blocks_show_their_criteria_in_order(lesson, exercise_id):
    meta = exercise_meta(exercise_id)
    block = next((e for e in lesson.exercises if e.id == exercise_id), None)
    assert block is not None, f"exercise {exercise_id} is not on the page"
    assert block.kind == meta["kind"]
    assert block.criteria == [c["id"] for c in meta["criteria"]]
    assert block.text.count("pendente") == len(meta["criteria"])


def test_nivel_2_criteria_are_the_contract():
    ids = [c["id"] for c in exercise_meta("nivel-2")["criteria"]]
    assert ids == ["diagnostico-escrita", "diagnostico-ponto-a", "escrita-atomica", "ponto-a", "seis-campos", "executavel"]


def test_nivel_1_criteria_are_the_contract():
    """One effect question for each of the eight fields on the list, missing or not, in a neutral order."""
    meta = exercise_meta("nivel-1")
    fields = [o["id"] for o in meta["questions"][0]["options"]]
    assert sorted(fields) == sorted(PROTOCOL_KEYS + ["createdAt", "model"])
    ids = [c["id"] for c in meta["criteria"]]
    # The protocol's order, the two non-fields last (issue 27: "Efeito 1" asked about createdAt).
    assert ids == ["campos-faltantes"] + [f"explica-{k}" for k in PROTOCOL_KEYS + ["createdAt", "model"]] + ["seis-campos"]
    assert [q["criterion"] for q in meta["questions"]] == ids[:-1]
    assert [c["title"] for c in meta["criteria"][1:-1]] == [f"Efeito {n}" for n in range(1, 9)]
    # A written-answer box for every field the student may mark, missing or not.
    assert sorted(w["option"] for w in meta["writings"]) == sorted(fields)


@pytest.mark.parametrize("exercise_id", ["quiz-sobrescrita", "nivel-1", "nivel-2"])
def test_structured_questions_are_form_controls(site_dir, exercise_id):
    html = (site_dir / "licao-2" / "index.html").read_text(encoding="utf-8")
    for question in exercise_meta(exercise_id).get("questions", []):
        assert f'data-question="{question["id"]}"' in html
        kind = "checkbox" if question["type"] == "multiple" else "radio"
        for option in question["options"]:
            assert f'<input type="{kind}" name="{exercise_id}--{question["id"]}" value="{option["id"]}">' in html
            if question["type"] == "multiple":
                assert "feedback" not in option  # one aggregate note: per-option notes sort the options in one click
            else:
                assert option["feedback"].strip(), f"{option['id']} has no feedback"


def test_lesson_is_in_portuguese(site_dir, lesson):
    html = (site_dir / "licao-2" / "index.html").read_text(encoding="utf-8")
    assert '<html lang="pt-BR"' in html or '<html lang="pt"' in html
    for word in ("retomada", "gravação", "ferramenta", "queda"):
        assert word in lesson.text


def test_home_presents_the_course_honestly(home):
    assert "licao-2/" in home.links
    assert "Retomando de um checkpoint: reiniciando o loop" in home.text  # the one title the seed gives
    assert "separa memória de estado de execução" in home.text
    assert "Exercícios de diagnóstico" not in home.text  # Lição 6's subject is not invented
    assert "não fazem parte deste site" in home.text


@pytest.mark.parametrize("exercise_id", ["nivel-1", "nivel-2"])
def test_statement_comes_from_exercises(lesson, exercise_id):
    statement = (ROOT / "exercises" / exercise_id / "statement.md").read_text(encoding="utf-8")
    first_sentence = statement.split("\n", 1)[0].split(".")[0].replace("`", "").replace("**", "")
    assert first_sentence in lesson.text
    assert exercise_meta(exercise_id)["statement"] == "statement.md"


def test_material_means_are_used(site_dir):
    html = (site_dir / "licao-2" / "index.html").read_text(encoding="utf-8")
    assert html.count('class="tabbed-set') == 1 and "Antes: sobrescrever no lugar" in html
    for title in ("Objetivos de aprendizado", "Pré-requisitos", "Só o B basta? Não.", "Por que"):
        assert f'<p class="admonition-title">{title}' in html
    # Code annotations: built in their final form (sitebuild/code_notes.py), a marker where the
    # author wrote `# (1)!` and its note beside it; no raw marker comment is left.
    assert html.count('popovertarget="lesson-note-') >= 3 and "# (1)!" not in html


def test_lesson_facts_are_right(lesson):
    """Facts a careful reader checked against the documentation (issue: lesson accuracy)."""
    text = " ".join(lesson.text.split())
    assert "EXDEV" in text and "Invalid cross-device link" in text
    assert "vira uma cópia" not in text and "shutil.move" in text  # only shutil.move falls back to a copy
    assert "os.fsync no diretório, depois da substituição" in text and "antes da substituição" in text  # what each fsync protects
    assert "UnicodeDecodeError" in text and "JSONDecodeError" in text
    assert "50 *a mais*" not in text and "a mais a cada queda" not in text and "nunca disparar" in text
    assert "a atomicidade não é garantida" in text and "PermissionError" in text
    assert "Anterior:" in text and "Próxima:" in text
    for calque in ("quanto menos dizer", "se reconcilia com esse registro", "cuida da metade", "falhar de forma barulhenta",
                   "analisando no escuro", "Na maioria das montagens", "Posto no loop", "Eles existem para o processo morto",
                   "a medir contra a regra", "melhor a troca", "uma queda pode cair", "se a queda cair"):
        assert calque not in text, calque


def test_comparison_table_agrees_with_the_recap(lesson):
    text = " ".join(lesson.text.split())
    assert "para onde você volta?" in text
    assert "“para onde volto se não gostei?”" not in text and "“de onde continuo se o processo morreu?”" not in text


@pytest.mark.parametrize("exercise_id", ["quiz-sobrescrita", "nivel-1", "nivel-2"])
def test_criteria_shown_before_verification_give_no_answer_away(site_dir, exercise_id):
    """Before the student commits, each criterion is a neutral title: no correct option, no full criterion."""
    import re

    page = (site_dir / "licao-2" / "index.html").read_text(encoding="utf-8")
    section = re.search(rf'<section class="exercise" data-exercise="{exercise_id}".*?</section>', page, re.S).group(0)
    shown = " ".join(re.sub(r"<[^>]+>", " ", re.search(r'<ol class="exercise-criteria".*?</ol>', section, re.S).group(0)).split())
    data = exercise_meta(exercise_id)
    for criterion in data["criteria"]:
        assert " ".join(re.sub(r"[`*]", "", criterion["title"]).split()) in shown
        assert re.sub(r"[`*]", "", criterion["label"])[:40] not in shown
    for question in data.get("questions", []):
        if question.get("type") == "multiple":
            # The missing fields themselves: no title names one ("Efeito 1", not "Sobre `task`").
            for option in question["options"]:
                assert not any(option["id"] in c["title"] for c in data["criteria"]), option["id"]
            continue
        for option in question["options"]:
            if option.get("correct"):
                text = " ".join(re.sub(r"[`*]", "", option["text"]).split())
                assert text[:30] not in shown, (question["id"], text)
    fields = ("version", "task", "turns", "tokensUsed", "pendingToolUse")
    assert not any(all(f in li for f in fields) for li in re.findall(r"<li[^>]*data-criterion.*?</li>", section, re.S))


def test_the_right_option_is_neither_usually_first_nor_usually_longest():
    from graders import exercises

    single = [q for e in exercises.EXERCISE_IDS for q in exercises.questions(e) if q.get("type") != "multiple"]
    assert len(single) >= 10
    first = sum(bool(q["options"][0].get("correct")) for q in single)
    longest = sum(bool(max(q["options"], key=lambda o: len(o["text"])).get("correct")) for q in single)
    assert first <= len(single) // 2 and longest <= len(single) // 2, (first, longest)
    for q in single:
        wrong = [o for o in q["options"] if not o.get("correct")]
        assert all(o.get("feedback") for o in wrong), q["id"]  # each misconception has its own feedback
        assert len({o["feedback"] for o in wrong}) == len(wrong), q["id"]


# --- issue 16: each fact a specialist corrected, checked on the built page ------------------------


def _flat(text: str) -> str:
    return " ".join(text.split())


def _from_bundle(site_dir, name: str) -> str:
    """What "Ver a solução de referência" shows: the file as the page's Python receives it."""
    import zipfile

    with zipfile.ZipFile(site_dir / "assets" / "python" / "lesson.zip") as bundle:
        return bundle.read(name).decode("utf-8")


def test_nivel_2_statement_describes_the_judge_truthfully(lesson):
    text = _flat(lesson.text)
    assert "morto de verdade" not in text and "cada ponto possível" not in text
    for said in ("Seu código roda uma vez", "camada de arquivos do Pyodide", "kernel do sistema operacional",
                 "depois de cada operação, no meio de cada escrita no checkpoint, durante cada chamada de ferramenta "
                 "e durante cada chamada ao modelo",
                 "O arquivo julgado é o checkpoint.json do diretório em que run_agent roda (o diretório atual)",
                 "não são julgados", "apagar ou arquivar o checkpoint.json depois da resposta final é permitido",
                 "falta de energia deixaria", "não conta para a nota"):
        assert said in text, said


def test_claude_code_rewinds_to_any_earlier_prompt(lesson):
    text = _flat(lesson.text)
    assert "antes do último prompt" not in text
    assert "o ponto antes de qualquer prompt anterior, escolhido pelo usuário com /rewind" in text


@pytest.mark.parametrize("exercise_id", ["nivel-1", "nivel-2"])
def test_reference_solutions_say_in_portuguese_only_what_they_do(site_dir, exercise_id):
    import io
    import tokenize

    source = _from_bundle(site_dir, f"exercises/{exercise_id}/solution.py")
    comments = [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.COMMENT]
    assert comments
    for comment in comments:
        assert not set(comment.lower().split()) & {"the", "against", "only", "same", "save", "point", "durable"}, comment
    said = _flat(" ".join(comments))
    if exercise_id == "nivel-2":
        # Durable against power loss only with both fsyncs, the directory one guarded for Windows.
        assert "os.fsync(f.fileno())" in source and "os.fsync(folder)" in source
        assert source.index('if os.name == "posix":') < source.index("os.fsync(folder)")
        assert "falta de energia" in said and "Ponto de gravação A" in said
    else:
        assert "fsync(" not in source  # it claims no durability it lacks
        assert "Contra falta de energia isso não basta" in said and "mesmo cuidado" not in said


def test_fsync_is_not_said_to_reach_the_platter_on_macos(lesson):
    text = _flat(lesson.text)
    assert "garantem que os bytes do arquivo novo já estão no disco físico" not in text
    assert "F_FULLFSYNC" in text and "no macOS, não" in text


def test_tool_result_is_a_block_inside_a_user_message(lesson):
    text = _flat(lesson.text)
    assert "user, assistant e tool_result" not in text
    assert "blocos tool_result dentro de uma mensagem user" in text


def test_the_demo_tells_a_killed_process_from_a_power_loss(lesson):
    text = _flat(lesson.text)
    assert "como numa falta de energia" not in text  # a torn write is not what a power loss leaves
    assert "A coluna Processo morto conta" in text and "o sistema operacional continua de pé" in text
    assert "A coluna Falta de energia conta" in text and "não foi sincronizado com os.fsync" in text


@pytest.mark.parametrize("exercise_id", ["nivel-1"])
def test_a_turn_count_from_zero_fires_late_or_never_not_early(lesson, exercise_id):
    everything = _flat(lesson.text) + (ROOT / "exercises" / exercise_id / "exercise.toml").read_text(encoding="utf-8")
    assert "cedo demais" not in everything
    assert "tarde demais" in _flat(lesson.text) and "nunca disparar" in _flat(lesson.text)


def test_tokens_used_is_defined_as_what_the_grader_checks(lesson):
    assert "a soma de usage.output_tokens de todas as respostas do modelo" in _flat(lesson.text)


def test_an_interrupted_in_place_write_leaves_an_empty_file_or_the_start_of_the_json(lesson):
    text = _flat(lesson.text)
    assert "meio documento" not in text and "JSON truncado" not in text
    assert "vazio ou só com o começo do JSON" in text and "numa única chamada write" in text
    for exercise_id in ("quiz-sobrescrita", "nivel-1", "nivel-2"):
        assert "meio documento" not in (ROOT / "exercises" / exercise_id / "exercise.toml").read_text(encoding="utf-8")


def test_the_orphan_call_can_be_inferred_and_pending_tool_use_makes_it_explicit(lesson):
    text = _flat(lesson.text)
    assert "não faz ideia de que ficou uma chamada órfã" not in text
    assert "deduzi-la do fim de messages" in text and "pendingToolUse deixa explícito" in text


def test_usage_is_a_precaution_and_sdk_objects_are_bridged(lesson):
    text = _flat(lesson.text)
    assert "usage pode faltar ou vir None" not in text
    assert "A API real sempre manda usage" in text and "modelos falsos de teste" in text
    assert "response.stop_reason" in text and "block.model_dump()" in text


def test_the_directory_fsync_is_guarded_for_windows(lesson):
    writer = next(b.text for b in lesson.code_blocks if "os.fsync(folder)" in b.text)
    guard = writer.index('if os.name == "posix":')
    assert guard < writer.index("os.open(directory") < writer.index("os.fsync(folder)")


def test_the_quiz_feedback_names_the_error_where_it_arises():
    """The quiz writes json.dumps' default output, which is ASCII: a cut leaves an empty or partial
    text, and json.loads (on a str, never UnicodeDecodeError) raises JSONDecodeError."""
    right = next(o for o in exercise_meta("quiz-sobrescrita")["questions"][0]["options"] if o.get("correct"))
    assert json.dumps({"task": "Classificação dos tickets"}).isascii()
    assert "JSONDecodeError" in right["feedback"] and "UnicodeDecodeError" not in right["feedback"]


def test_a_resume_sketch_loads_checks_the_version_and_continues(lesson):
    sketch = next(b.text for b in lesson.code_blocks if "json.load(f)" in b.text)
    assert len(sketch.strip().splitlines()) <= 12
    assert (sketch.index("json.load(f)") < sketch.index('state.get("version") != 1') < sketch.index("if missing:")
            < sketch.index('state["pendingToolUse"] is not None') < sketch.index("call_model("))


def test_pending_tool_use_is_written_as_a_dict_not_a_set(lesson):
    text = _flat(lesson.text)
    assert '{"id", "name", "input"}' not in text and "{id, name, input}" not in text
    assert '{"id": ..., "name": ..., "input": ...}' in text


def test_the_portuguese_the_teacher_asked_for(lesson, site_dir):
    text = _flat(lesson.text)
    for calque in ("trocá-lo de lugar", "devolva pendingToolUse", "só cava o buraco", "rasgad", "sai de compasso",
                   "a vaga reservada", "ler de volta", "quando ela melhora comprovadamente", "de plantão",
                   "queda de energia", "falta de luz", "maquinário", "«", "»", "vez(es)", "(ns)"):
        assert calque not in text, calque
    assert "pô-lo no lugar do antigo com os.replace" in text and "falta de energia" in text


def test_the_quiz_has_one_name_everywhere(lesson, home, site_dir):
    name = exercise_meta("quiz-sobrescrita")["title"]
    assert name == "Pergunta: o que dá errado ao sobrescrever no lugar?"
    assert lesson.headings["quiz-sobrescrita"] == name
    assert name in home.text
    html = (site_dir / "licao-2" / "index.html").read_text(encoding="utf-8")
    assert f'aria-label="Exercício: {name}"' in html


def test_the_quiz_comes_before_the_paragraph_that_answers_it(lesson):
    headings = list(lesson.headings)
    assert headings.index("como-salvar") < headings.index("quiz-sobrescrita") < headings.index("nao-atomico")
    text = _flat(lesson.text)
    assert text.index("Qual é o problema disso?") < text.index("trunca (esvazia) o arquivo antigo na hora")
