"""The exercise widget in a real headless Chromium, against the built site on a local server."""

from __future__ import annotations

import json
import re

import pytest

from graders import exercises
from test_browser_site import Recorder

pytestmark = pytest.mark.browser

SOLUTION = exercises.read_text("nivel-2", "solution.py")
STARTER = exercises.read_text("nivel-2", "starter.py")
RIGHT_DIAGNOSIS = {"falha-escrita": "sobrescreve", "efeito-escrita": "meio-documento",
                   "falha-ponto-a": "so-ponto-b", "efeito-ponto-a": "sem-rastro"}
RIGHT_EFFECTS = {f"efeito-{q}": next(o["id"] for o in question["options"] if o.get("correct"))
                 for question in exercises.questions("nivel-1") if question["type"] == "single"
                 for q in [question["id"].removeprefix("efeito-")]}
VERDICT_TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def lesson(browser, site_url):
    """One page (one Python worker) shared by the flows below, as a student would use it."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    mount_all(page)  # all three widgets are up
    yield page, recorder
    assert recorder.foreign(site_url) == [], "a request left the page's origin"
    assert recorder.console_errors == [], recorder.console_errors
    context.close()


def widget(page, exercise_id):
    """The exercise once its widget has mounted: brought near the screen first, as a student scrolls
    to it (each widget mounts when its exercise nears the screen; see main.js)."""
    page.locator(f"section.exercise[data-exercise='{exercise_id}']").scroll_into_view_if_needed()
    return page.locator(f"section.exercise[data-exercise='{exercise_id}'][data-mounted]")


def mount_all(page):
    """Scroll past every exercise of the page, so that all of their widgets mount; wait for them."""
    sections = page.locator("section.exercise")
    for n in range(sections.count()):
        sections.nth(n).scroll_into_view_if_needed()
        page.locator("section.exercise").nth(n).and_(page.locator("[data-mounted]")).wait_for()


def set_code(page, exercise_id, code):
    editor = widget(page, exercise_id).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)


def editor_text(page, exercise_id):
    return widget(page, exercise_id).locator(".cm-content").evaluate(
        "el => [...el.querySelectorAll('.cm-line')].map(l => l.textContent).join('\\n')"
    )


def choose(page, exercise_id, answers):
    for question, option in answers.items():
        widget(page, exercise_id).locator(f"input[name='{exercise_id}--{question}'][value='{option}']").check()


def verify(page, exercise_id):
    section = widget(page, exercise_id)
    section.locator(".exercise-summary").evaluate("el => el.textContent = ''")
    section.get_by_role("button", name="Verificar").click()
    page.wait_for_function(
        "id => document.querySelector(`section[data-exercise='${id}'] .exercise-summary`).textContent.length > 0",
        arg=exercise_id, timeout=VERDICT_TIMEOUT_MS,
    )
    return section.locator(".exercise-summary").inner_text()


STOPPED = "Execução interrompida. Seu código continua no editor."


def verify_then_stop(page, exercise_id) -> str:
    """Verificar, then one press of Parar once the check runs (one is always enough); the summary."""
    section = widget(page, exercise_id)
    section.get_by_role("button", name="Verificar").click()
    stop = section.get_by_role("button", name="Parar")
    stop.wait_for(state="visible")
    page.wait_for_timeout(500)  # the check is running the student's loop by now
    stop.click()
    section.get_by_role("button", name="Verificar").and_(section.locator(":enabled")).wait_for(timeout=VERDICT_TIMEOUT_MS)
    return section.locator(".exercise-summary").inner_text()


def states(page, exercise_id):
    widget(page, exercise_id).wait_for()
    items = widget(page, exercise_id).locator("li[data-criterion]")
    return {li.get_attribute("data-criterion"): li.get_attribute("data-state") for li in items.all()}


def test_reference_solution_turns_every_criterion_ok(lesson):
    page, _ = lesson
    assert states(page, "nivel-2") == dict.fromkeys(exercises.criterion_ids("nivel-2"), "pendente")
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == "Todas as verificações passaram."
    assert states(page, "nivel-2") == dict.fromkeys(exercises.criterion_ids("nivel-2"), "ok")
    reveal = widget(page, "nivel-2").get_by_role("button", name="Ver a solução de referência")
    reveal.click()
    assert "os.replace" in widget(page, "nivel-2").locator(".exercise-solution__code").inner_text(timeout=VERDICT_TIMEOUT_MS)


WRONG_DIAGNOSIS = {q["id"]: next(o["id"] for o in q["options"] if not o.get("correct"))
                   for q in exercises.questions("nivel-2")}
# What the code's explanations of the starter say: each one answers a diagnosis question.
FAULT_WORDS = ("para escrita", "truncou", "0 bytes", "ponto A", "pendingToolUse", "os.replace", "esvazi",
               "execute_tool", "Queda ")


def test_the_code_criteria_keep_the_diagnosis_until_it_is_answered(browser, site_url):
    """Nível 2's questions diagnose the starter; a Verificar on it must not state the answers (the
    in-place write, point A) through the code criteria, their disk views or the timeline, neither
    blank nor after a wrong guess at every question: only a right (or revealed) diagnosis opens them."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(site_url + "licao-2/")
        section = widget(page, "nivel-2")
        assert "Chutar não abre nada" in page.locator("article").inner_text()  # the statement says the rule

        def assert_closed():
            shown = section.locator(".exercise-criteria").inner_text() + section.locator(".exercise-summary").inner_text()
            for words in FAULT_WORDS:
                assert words not in shown, f"the check says {words!r} before the diagnosis: {shown}"
            for code in ("escrita-atomica", "ponto-a"):
                message = section.locator(f"li[data-criterion='{code}'] .exercise-criterion__message").inner_text()
                assert "O diagnóstico vem primeiro" in message
            assert section.locator(".exercise-timeline").is_hidden() and section.locator(".exercise-disk").is_hidden()

        assert verify(page, "nivel-2").startswith("2 de 6")  # the untouched starter, nothing answered
        failed = section.locator("li[data-criterion][data-state='falhou']")
        assert sorted(li.get_attribute("data-criterion") for li in failed.all()) == [
            "diagnostico-escrita", "diagnostico-ponto-a", "escrita-atomica", "ponto-a"]
        assert_closed()
        # A wrong guess at every question, checked: still closed.
        choose(page, "nivel-2", WRONG_DIAGNOSIS)
        verify(page, "nivel-2")
        assert_closed()
        # One criterion right, the other wrong: still closed.
        choose(page, "nivel-2", {k: v for k, v in RIGHT_DIAGNOSIS.items() if k.endswith("escrita")})
        verify(page, "nivel-2")
        assert_closed()
        # Every question right: the code criteria explain themselves.
        choose(page, "nivel-2", RIGHT_DIAGNOSIS)
        verify(page, "nivel-2")
        atomic = section.locator("li[data-criterion='escrita-atomica'] .exercise-criterion__message").inner_text()
        assert atomic.startswith("Queda ") and "checkpoint.json" in atomic
        assert section.locator(".exercise-timeline").is_visible()
        # The starter saves only at point B: the legend names the parts this timeline has, not A1.
        legend = section.locator(".crash-timeline__intro").inner_text()
        assert "B1" in legend and "A1" not in legend, legend
        page.reload()  # the opened state is the student's, kept with their record
        section = widget(page, "nivel-2")
        section.locator(".exercise-timeline").wait_for(timeout=VERDICT_TIMEOUT_MS)
        assert "Queda " in section.locator("li[data-criterion='escrita-atomica'] .exercise-criterion__message").inner_text()
    finally:
        context.close()


def test_starter_fails_exactly_the_two_fixes_with_messages(lesson):
    page, _ = lesson
    set_code(page, "nivel-2", STARTER)
    summary = verify(page, "nivel-2")
    assert summary.startswith("4 de 6")
    got = states(page, "nivel-2")
    assert [c for c, s in got.items() if s == "falhou"] == ["escrita-atomica", "ponto-a"]
    section = widget(page, "nivel-2")
    atomic = section.locator("li[data-criterion='escrita-atomica'] .exercise-criterion__message")
    assert atomic.inner_text().startswith("Queda ") and "checkpoint.json" in atomic.inner_text()
    # Failed: the neutral title stays (the full criterion would say how to fix it); passed: the full one.
    label = section.locator("li[data-criterion='escrita-atomica'] .exercise-criterion__label").inner_text()
    assert label == "Correção um: a gravação"
    assert "roda de verdade" in section.locator("li[data-criterion='executavel'] .exercise-criterion__label").inner_text()
    assert section.locator("li[data-criterion='ponto-a'] .exercise-criterion__message").is_visible()
    timeline = section.locator(".exercise-timeline")
    assert timeline.is_visible() and "Queda" in timeline.inner_text()
    assert section.locator(".exercise-disk").is_hidden()  # the timeline carries the disk views
    assert section.get_by_role("button", name="Ver a solução de referência").is_hidden()


def test_crash_timeline_selects_the_first_failure_and_shows_its_bytes(lesson):
    """In-place writes with point A: the timeline opens on the first crash that broke the file."""
    from conftest import ROOT

    page, _ = lesson
    source = (ROOT / "tests" / "corpus" / "nivel-2" / "bad_only_point_a_fixed.py").read_text(encoding="utf-8")
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)  # the timeline opens once the questions are answered; this test may run on its own
    set_code(page, "nivel-2", source)
    verify(page, "nivel-2")
    section = widget(page, "nivel-2")
    marks = section.locator(".crash-timeline__mark")
    chosen = section.locator(".crash-timeline__mark[aria-checked='true']")
    assert chosen.count() == 1 and chosen.get_attribute("data-outcome") == "falhou"
    outcomes = [m.get_attribute("data-outcome") for m in marks.all()]
    assert chosen.get_attribute("data-n") == str(outcomes.index("falhou") + 1), "not the first failing crash"
    detail = section.locator(".crash-timeline__detail")
    assert "Não é um JSON completo (0 bytes)" in detail.inner_text()
    # Issue 41, 4: the error is named where it arises (an empty text reaches json.loads).
    assert "na retomada, o texto lido seria vazio, e json.loads lançaria JSONDecodeError" in detail.inner_text()
    # One sentence: "Queda n de N: falhou, logo depois…" (never "falhou. logo…").
    assert section.locator(".crash-timeline__live").inner_text().endswith(
        "falhou, logo depois da abertura de checkpoint.json para escrita (criado agora).")
    # The next crash tears the write that follows after its first byte: exactly that byte is on disk.
    chosen.focus()
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.getAttribute('aria-checked')") == "true"
    assert section.locator(".crash-timeline__mark[aria-checked='true']").count() == 1
    assert "depois de 1 byte" in detail.inner_text()
    assert section.locator(".crash-timeline__columns .crash-timeline__disk").first.inner_text() == "{"
    page.keyboard.press("End")
    assert section.locator(".crash-timeline__mark[aria-checked='true']").get_attribute("data-n") == str(len(outcomes))
    # The table alternative lists the same crashes, in order, with the same outcomes.
    section.locator(".crash-timeline__table summary").click()
    rows = section.locator(".crash-timeline__table tbody tr")
    assert [r.get_attribute("data-outcome") for r in rows.all()] == outcomes
    assert rows.count() == marks.count()


def test_executar_shows_the_run_and_a_traceback_into_the_editor(lesson):
    page, _ = lesson
    section = widget(page, "nivel-2")
    set_code(page, "nivel-2", STARTER)
    section.get_by_role("button", name="Executar").click()
    output = section.locator(".exercise-output")
    output.locator(".exercise-output__checkpoint").wait_for(timeout=VERDICT_TIMEOUT_MS)
    assert "chamou o modelo 3 vezes" in output.inner_text()
    set_code(page, "nivel-2", "def run_agent(task, tools, call_model, execute_tool):\n    x = {}\n    print('oi')\n    return x['falta']\n")
    section.get_by_role("button", name="Executar").click()
    error = output.locator(".exercise-output__error")
    error.wait_for(timeout=VERDICT_TIMEOUT_MS)
    assert "linha 4" in error.inner_text() and "KeyError" in error.inner_text()
    assert "oi" in output.locator(".exercise-output__stdout").inner_text()
    output.get_by_role("button", name="Ir para a linha 4 no editor").click()
    selected = page.evaluate("getSelection().toString()")
    assert "return x['falta']" in selected


def executar_error(page, exercise_id, code) -> str:
    """Executar on `code`; the error the run's output shows."""
    section = widget(page, exercise_id)
    set_code(page, exercise_id, code)
    # An earlier run's error stays on screen (marked stale) until this run's output replaces it.
    section.locator(".exercise-output__error").evaluate_all("els => els.forEach(e => e.dataset.old = '1')")
    section.get_by_role("button", name="Executar").click()
    error = section.locator(".exercise-output__error:not([data-old])")
    error.wait_for(timeout=VERDICT_TIMEOUT_MS)
    return error.inner_text()


def test_executar_names_code_that_ends_python_itself(lesson):
    page, _ = lesson
    text = executar_error(page, "nivel-2", "import os\nos._exit(0)\n")
    assert "o próprio código o encerrou" in text and "os._exit" in text


def test_syntax_error_names_its_line(lesson):
    page, _ = lesson
    set_code(page, "nivel-2", "def run_agent(task, tools, call_model, execute_tool)\n    pass\n")
    verify(page, "nivel-2")
    message = widget(page, "nivel-2").locator("li[data-criterion='executavel'] .exercise-criterion__message").inner_text()
    assert "Erro de sintaxe na linha 1" in message


def test_infinite_loop_is_stopped_and_the_page_recovers(lesson):
    page, _ = lesson
    loop = "def run_agent(task, tools, call_model, execute_tool):\n    while True:\n        pass\n"
    set_code(page, "nivel-2", loop)
    section = widget(page, "nivel-2")
    section.locator(".exercise-summary").evaluate("el => el.textContent = ''")
    section.get_by_role("button", name="Verificar").click()
    section.get_by_role("button", name="Parar").wait_for(state="visible")
    assert section.get_by_role("button", name="Parar").is_visible()
    # The page keeps working while Python loops in the worker: the editor takes keystrokes.
    section.locator(".cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("\n# ainda respondendo")
    assert "# ainda respondendo" in editor_text(page, "nivel-2")
    assert section.locator(".exercise-summary").inner_text() == ""  # still running
    page.wait_for_function(
        "document.querySelector(\"section[data-exercise='nivel-2'] .exercise-summary\").textContent.includes('laço infinito')",
        timeout=VERDICT_TIMEOUT_MS,
    )
    assert editor_text(page, "nivel-2").startswith("def run_agent")  # nothing typed is lost
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)  # this test may run on its own
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == "Todas as verificações passaram."


def test_parar_stops_a_running_check(lesson):
    page, _ = lesson
    set_code(page, "nivel-2", "def run_agent(task, tools, call_model, execute_tool):\n    while True:\n        pass\n")
    # Parar's own message, not the 10 s limit's (which says "laço infinito").
    assert verify_then_stop(page, "nivel-2") == STOPPED
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == "Todas as verificações passaram."


def test_reiniciar_asks_and_can_be_undone(lesson):
    page, _ = lesson
    set_code(page, "nivel-2", "# minha versão\n" + SOLUTION)
    answers = []
    page.once("dialog", lambda d: (answers.append(d.message), d.accept()))
    widget(page, "nivel-2").get_by_role("button", name="Reiniciar").click()
    assert answers and "código inicial" in answers[0]
    assert editor_text(page, "nivel-2") == STARTER.rstrip("\n") or editor_text(page, "nivel-2") == STARTER
    page.keyboard.press("Control+z")
    assert editor_text(page, "nivel-2").startswith("# minha versão")


def test_baixar_downloads_the_code(lesson):
    page, _ = lesson
    set_code(page, "nivel-2", SOLUTION)
    with page.expect_download() as info:
        widget(page, "nivel-2").get_by_role("button", name="Baixar .py").click()
    download = info.value
    assert download.suggested_filename == "nivel-2.py"
    assert open(download.path(), encoding="utf-8").read() == SOLUTION


def test_quiz_and_nivel_1_are_graded_from_their_forms(lesson):
    page, _ = lesson
    choose(page, "quiz-sobrescrita", {"resposta": "lento"})
    verify(page, "quiz-sobrescrita")
    message = widget(page, "quiz-sobrescrita").locator(".exercise-criterion__message").inner_text()
    assert states(page, "quiz-sobrescrita") == {"resposta": "falhou"} and "desempenho" in message
    choose(page, "quiz-sobrescrita", {"resposta": "meio-documento"})
    assert verify(page, "quiz-sobrescrita") == "A verificação passou."
    section = widget(page, "nivel-1")
    for field in ("version", "task", "turns", "tokensUsed", "pendingToolUse"):
        section.locator(f"input[name='nivel-1--campos-faltantes'][value='{field}']").check()
    choose(page, "nivel-1", RIGHT_EFFECTS)
    set_code(page, "nivel-1", exercises.read_text("nivel-1", "starter.py"))
    verify(page, "nivel-1")
    assert states(page, "nivel-1")["seis-campos"] == "falhou"
    assert section.locator(".exercise-disk").is_hidden()  # nothing crashed in Nível 1: no crash panel
    set_code(page, "nivel-1", exercises.read_text("nivel-1", "solution.py"))
    assert verify(page, "nivel-1") == "Todas as verificações passaram."


def test_export_downloads_every_answer_in_the_cli_format(lesson, tmp_path):
    page, _ = lesson
    page.wait_for_timeout(600)  # past the save debounce
    with page.expect_download() as info:
        page.locator(".lesson-export").first.get_by_role("button", name="Exportar respostas").click()
    path = tmp_path / "respostas.json"
    info.value.save_as(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["format"] == "checkpoints-licao-2/respostas" and doc["version"] == 3
    assert set(doc["exercises"]) == {"quiz-sobrescrita", "nivel-1", "nivel-2"}
    from graders.grading import grade
    from graders.submission import read

    for exercise in ("quiz-sobrescrita", "nivel-1", "nivel-2"):
        assert grade(exercise, read(str(path), exercise)).passed, exercise


def test_progress_shows_on_the_course_home(lesson, site_url):
    page, _ = lesson
    page.get_by_role("link", name="Início", exact=True).first.click()
    page.wait_for_url(lambda url: url.split("#")[0] == site_url)
    page.locator(".course-progress li[data-state]").first.wait_for()
    states_on_home = {
        li.get_attribute("data-exercise"): li.get_attribute("data-state")
        for li in page.locator(".course-progress li").all()
    }
    assert states_on_home == {"quiz-sobrescrita": "concluido", "nivel-1": "concluido", "nivel-2": "concluido"}


def test_instant_navigation_keeps_the_widget_and_the_worker(lesson, site_url):
    page, recorder = lesson
    page.evaluate("window.__sameDocument = true")
    page.goto(site_url)  # a real load, then instant navigation from here on
    page.evaluate("window.__sameDocument = true")
    page.get_by_role("link", name="Começar a Lição 2").click()
    page.wait_for_url(lambda url: url.split("#")[0] == site_url + "licao-2/")
    assert page.evaluate("window.__sameDocument") is True, "navigation was not instant"
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == "Todas as verificações passaram."
    wasm_before = sum(u.endswith("pyodide.asm.wasm") for u in recorder.page_requests)
    page.get_by_role("link", name="Início", exact=True).first.click()
    page.wait_for_url(lambda url: url.split("#")[0] == site_url)
    page.get_by_role("link", name="Começar a Lição 2").click()
    page.wait_for_url(lambda url: url.split("#")[0] == site_url + "licao-2/")
    assert page.evaluate("window.__sameDocument") is True
    assert verify(page, "nivel-2") == "Todas as verificações passaram."
    assert sum(u.endswith("pyodide.asm.wasm") for u in recorder.page_requests) == wasm_before, "the worker was not reused"


def test_editor_follows_the_palette(lesson):
    page, _ = lesson
    editor = widget(page, "nivel-2").locator(".cm-editor")
    background = lambda: editor.evaluate("el => getComputedStyle(el).backgroundColor")  # noqa: E731
    before = background()
    scheme = page.locator("body").get_attribute("data-md-color-scheme")
    toggle = page.locator("form[data-md-component=palette] label:visible").first
    for _ in range(3):
        toggle = page.locator("form[data-md-component=palette] label:visible").first
        toggle.click()
        if page.locator("body").get_attribute("data-md-color-scheme") != scheme:
            break
    assert page.locator("body").get_attribute("data-md-color-scheme") != scheme
    assert background() != before


def test_reload_keeps_the_typed_code(lesson):
    page, _ = lesson
    set_code(page, "nivel-2", "# rascunho da Ana\n" + SOLUTION)
    page.reload()  # at once: the last keystrokes are still in the save debounce
    widget(page, "nivel-2").locator(".cm-content").wait_for()
    assert editor_text(page, "nivel-2").startswith("# rascunho da Ana")
    assert widget(page, "nivel-2").locator("input[value='sobrescreve']").is_checked()


def test_keyboard_only_reaches_and_presses_every_control(lesson):
    page, _ = lesson
    section = widget(page, "nivel-2")
    controls = section.locator("button:visible, input, .cm-content")
    for i in range(controls.count()):
        control = controls.nth(i)
        name = control.evaluate(
            "el => el.getAttribute('aria-label') || (el.labels && el.labels[0] && el.labels[0].textContent) || el.textContent"
        )
        assert name and name.strip(), control.evaluate("el => el.outerHTML.slice(0, 120)")
    # Tab from the editor is indentation; Escape then Tab leaves it for the toolbar.
    set_code(page, "nivel-2", SOLUTION)
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.closest('.cm-editor') === null")
    assert focused, "Escape then Tab did not leave the editor"
    reached = []
    for _ in range(8):
        reached.append(page.evaluate("document.activeElement.textContent"))
        if reached[-1] == "Verificar":
            break
        page.keyboard.press("Tab")
    assert "Executar" in reached and reached[-1] == "Verificar", reached
    section.locator(".exercise-summary").evaluate("el => el.textContent = ''")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "document.querySelector(\"section[data-exercise='nivel-2'] .exercise-summary\").textContent.length > 0",
        timeout=VERDICT_TIMEOUT_MS,
    )
    # Ctrl+Enter in the editor verifies too.
    section.locator(".exercise-summary").evaluate("el => el.textContent = ''")
    section.locator(".cm-content").click()
    page.keyboard.press("Control+Enter")
    page.wait_for_function(
        "document.querySelector(\"section[data-exercise='nivel-2'] .exercise-summary\").textContent.length > 0",
        timeout=VERDICT_TIMEOUT_MS,
    )


def test_corrupted_storage_is_set_aside_and_the_page_works(browser, site_url):
    context = browser.new_context()
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url)  # the course home: no widget there to save over the records
    page.evaluate("""() => {
        localStorage.setItem('licao-2/exercicio/nivel-2', '{isto não é json');
        localStorage.setItem('licao-2/exercicio/nivel-1', JSON.stringify({version: 99, code: 'futuro'}));
    }""")
    page.reload()
    # The home only reads: it reports the records, and leaves them where they are. progress.js sets the
    # state once its module has run, which may be after reload() returns (a slow machine).
    item = page.wait_for_selector(".course-progress li[data-exercise='nivel-2'][data-state]")
    assert item.get_attribute("data-state") == "ilegivel"
    assert page.evaluate("localStorage.getItem('licao-2/exercicio/nivel-2')") == "{isto não é json"
    page.goto(site_url + "licao-2/")
    for exercise in ("nivel-1", "nivel-2"):
        alert = widget(page, exercise).locator(".exercise-alert")
        alert.wait_for(state="visible")
        assert "guardado à parte" in alert.inner_text()
        assert "licao-2/" not in alert.inner_text() and "localStorage" not in alert.inner_text()  # plain words
    assert "versão 99" in widget(page, "nivel-1").locator(".exercise-alert").inner_text()
    assert editor_text(page, "nivel-2").startswith("import json")  # back to the starter
    kept = page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('licao-2/guardado-a-parte/'))")
    assert len(kept) == 2
    assert page.evaluate(f"localStorage.getItem({json.dumps(kept[0])})") in ('{isto não é json', json.dumps({"version": 99, "code": "futuro"}, separators=(",", ":")))
    choose(page, "quiz-sobrescrita", {"resposta": "meio-documento"})
    assert verify(page, "quiz-sobrescrita") == "A verificação passou."
    assert recorder.console_errors == []
    context.close()


def open_isolated_lesson(browser, isolated_site_url, init_script: str | None = None):
    """A fresh context on the lesson served with COOP/COEP, where Python is interrupted in place."""
    context = browser.new_context()
    if init_script:
        context.add_init_script(init_script)
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(isolated_site_url + "licao-2/")
    assert page.evaluate("crossOriginIsolated") is True
    return context, page, recorder


def test_parar_interrupts_in_place_when_cross_origin_isolated(browser, isolated_site_url):
    context, page, recorder = open_isolated_lesson(browser, isolated_site_url)
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == "Todas as verificações passaram."
    set_code(page, "nivel-2", "def run_agent(task, tools, call_model, execute_tool):\n    while True:\n        pass\n")
    assert verify_then_stop(page, "nivel-2") == STOPPED
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == "Todas as verificações passaram."
    # Interrupted, not replaced: Python was loaded once.
    assert sum(u.endswith("pyodide.asm.wasm") for u in recorder.page_requests) == 1
    assert recorder.console_errors == [] and recorder.foreign(isolated_site_url) == []
    context.close()


SWALLOWS_ONE_INTERRUPT = (
    "def run_agent(task, tools, call_model, execute_tool):\n"
    "    try:\n        while True:\n            pass\n    except KeyboardInterrupt:\n        pass\n"
    "    while True:\n        pass\n"
)
# Python never raises KeyboardInterrupt again: with SIGINT ignored, CPython drops the interrupt the
# page asks for (PyErr_SetInterruptEx does nothing for an ignored signal). A `finally` that starts
# the loop again leaves a window: an interrupt that lands between the `finally` and the next `try`
# escapes, and then the test would not test the replacement.
SWALLOWS_EVERY_INTERRUPT = (
    "import signal\n\n"
    "def run_agent(task, tools, call_model, execute_tool):\n"
    "    signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    "    while True:\n        pass\n"
)


RAISES_KEYBOARD_INTERRUPT = "def run_agent(task, tools, call_model, execute_tool):\n    raise KeyboardInterrupt\n"


@pytest.mark.parametrize("where", ["isolated", "plain"])
def test_a_keyboard_interrupt_the_code_raises_itself_is_judged_not_taken_for_parar(browser, site_url, isolated_site_url, where):
    """Only the page's Parar (or time limit) ends a check without a verdict; the student's own
    `raise KeyboardInterrupt` is a failure like any other, where the page interrupts in place or not."""
    if where == "isolated":
        context, page, recorder = open_isolated_lesson(browser, isolated_site_url)
    else:
        context = browser.new_context()
        recorder = Recorder(context)
        page = context.new_page()
        page.goto(site_url + "licao-2/")
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)  # the code criteria explain themselves once it is answered
    set_code(page, "nivel-2", RAISES_KEYBOARD_INTERRUPT)
    summary = verify(page, "nivel-2")
    assert summary != STOPPED
    assert states(page, "nivel-2")["executavel"] == "falhou"
    message = widget(page, "nivel-2").locator("li[data-criterion='executavel'] .exercise-criterion__message").inner_text()
    assert "KeyboardInterrupt" in message, message
    # Parar still stops a check without a verdict, on the same Python.
    set_code(page, "nivel-2", "def run_agent(task, tools, call_model, execute_tool):\n    while True:\n        pass\n")
    assert verify_then_stop(page, "nivel-2") == STOPPED
    assert recorder.console_errors == []
    context.close()


def test_one_press_of_parar_stops_code_that_swallows_interrupts(browser, isolated_site_url):
    """An interrupt Python took without stopping is asked again; code that swallows every one gets
    its Python replaced. Either way one press is enough, and the time limit never has to step in."""
    context, page, recorder = open_isolated_lesson(browser, isolated_site_url)
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    # Python ready first: a Parar pressed while it still loads only cancels the waiting check (no
    # student code ran), and the test would pass without testing what it says (seen 3 runs of 4).
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == "Todas as verificações passaram."
    runtime = ("import(new URL('assets/javascripts/lesson/runtime.js', document.baseURI.replace(/licao-2\\/.*$/, '')))"
               ".then(m => m.sharedRuntime().booted)")
    set_code(page, "nivel-2", SWALLOWS_ONE_INTERRUPT)
    assert verify_then_stop(page, "nivel-2") == STOPPED
    assert page.evaluate(runtime).get("fresh") is True  # asked again, not replaced
    set_code(page, "nivel-2", SWALLOWS_EVERY_INTERRUPT)
    assert verify_then_stop(page, "nivel-2") == STOPPED
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == "Todas as verificações passaram."
    # This time, replaced: by a Python restored from the page's memory snapshot.
    assert page.evaluate(runtime).get("restored") is True
    assert recorder.console_errors == []
    context.close()


def test_just_visiting_the_lesson_records_no_progress(browser, site_url):
    context = browser.new_context()
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    widget(page, "nivel-2").locator(".cm-content").wait_for()
    page.goto(site_url)  # a real unload: pagehide saves only what changed
    page.locator(".course-progress li[data-state]").first.wait_for()  # set by progress.js, all at once
    states_on_home = {li.get_attribute("data-exercise"): li.get_attribute("data-state")
                      for li in page.locator(".course-progress li").all()}
    assert set(states_on_home.values()) == {"nao-iniciado"}
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('licao-2/'))") == []
    context.close()


def test_blocked_storage_is_reported_and_nothing_breaks(browser, site_url):
    context = browser.new_context()
    context.add_init_script("Storage.prototype.setItem = function () { throw new DOMException('cheio', 'QuotaExceededError'); };")
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    choose(page, "quiz-sobrescrita", {"resposta": "meio-documento"})
    alert = widget(page, "quiz-sobrescrita").locator(".exercise-alert")
    alert.wait_for(state="visible")
    assert "não deixou a página guardar" in alert.inner_text()
    assert verify(page, "quiz-sobrescrita") == "A verificação passou."
    # What could not be stored is still in the export the alert points to.
    exported = page.evaluate("async () => (await import(new URL('assets/javascripts/lesson/progress.js', "
                             "document.baseURI.replace(/licao-2\\/.*$/, '')))).exportAnswers()")
    assert exported["exercises"]["quiz-sobrescrita"]["answers"] == {"resposta": "meio-documento"}, exported
    assert recorder.console_errors == []
    context.close()


def test_python_starts_with_the_page_with_a_visible_loading_state(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    status = widget(page, "nivel-2").locator(".exercise-status")
    status.wait_for(state="attached")
    # Without scrolling to any exercise: Python boots while the page loads, and says so.
    page.wait_for_function(
        "el => el.textContent === 'Carregando Python…'", arg=status.element_handle(), timeout=10_000)
    page.wait_for_function("el => el.textContent === 'Python pronto.'", arg=status.element_handle(), timeout=60_000)
    assert any(u.endswith("/pyodide/pyodide.asm.wasm") for u in recorder.requests)
    # The worker started from <head> was adopted by the widgets, not started a second time.
    assert sum(u.endswith("/python-worker.js") for u in recorder.page_requests) == 1
    context.close()


def test_python_waits_for_an_exercise_when_the_browser_saves_data(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script("Object.defineProperty(Navigator.prototype, 'connection', {get: () => ({saveData: true})})")
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(5000)  # well past the page's load
    assert not any("/pyodide/" in u for u in recorder.requests), "Python loaded although the browser asked to save data"
    section = widget(page, "nivel-2")
    section.scroll_into_view_if_needed()
    status = section.locator(".exercise-status")
    page.wait_for_function("el => el.textContent === 'Python pronto.'", arg=status.element_handle(), timeout=60_000)
    context.close()


def test_the_time_limit_interrupts_in_place_when_cross_origin_isolated(browser, isolated_site_url):
    context, page, recorder = open_isolated_lesson(browser, isolated_site_url, "globalThis.LESSON_TIME_LIMIT_MS = 3000")
    set_code(page, "nivel-2", "def run_agent(task, tools, call_model, execute_tool):\n    while True:\n        pass\n")
    assert "laço infinito" in verify(page, "nivel-2")
    set_code(page, "nivel-2", SOLUTION)
    verify(page, "nivel-2")
    assert states(page, "nivel-2")["executavel"] == "ok"
    # Interrupted, not replaced: Python was loaded once.
    assert sum(u.endswith("pyodide.asm.wasm") for u in recorder.page_requests) == 1
    assert recorder.console_errors == []
    context.close()


def test_parar_while_python_loads_cancels_the_check(browser, site_url):
    context = browser.new_context()
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    section = widget(page, "quiz-sobrescrita")
    section.locator("input[value='meio-documento']").check()
    section.get_by_role("button", name="Verificar").click()  # Python is still loading
    section.get_by_role("button", name="Parar").click()
    page.wait_for_function(
        "document.querySelector(\"section[data-exercise='quiz-sobrescrita'] .exercise-summary\").textContent.includes('interrompida')",
        timeout=VERDICT_TIMEOUT_MS,
    )
    assert verify(page, "quiz-sobrescrita") == "A verificação passou."
    context.close()


def test_options_are_shuffled_per_student_and_the_order_survives_a_reload(browser, site_url):
    context = browser.new_context()
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    mount_all(page)
    shown = """() => Object.fromEntries([...document.querySelectorAll('fieldset.exercise-question')]
        .map(f => [f.dataset.question, [...f.querySelectorAll('input')].map(i => i.value)]))"""
    before = page.evaluate(shown)
    authored = {q["id"]: [o["id"] for o in q["options"]]
                for exercise in exercises.EXERCISE_IDS for q in exercises.questions(exercise)}
    assert {q: sorted(ids) for q, ids in before.items()} == {q: sorted(ids) for q, ids in authored.items()}
    assert sum(before[q] != authored[q] for q in before) >= 3, "the options are not shuffled"
    choose(page, "quiz-sobrescrita", {"resposta": "meio-documento"})
    page.wait_for_function("() => localStorage.getItem('licao-2/exercicio/quiz-sobrescrita') !== null")
    page.reload()
    mount_all(page)
    after = page.evaluate(shown)
    assert after["resposta"] == before["resposta"]
    assert widget(page, "quiz-sobrescrita").locator("input[value='meio-documento']").is_checked()
    context.close()


def test_written_answers_are_kept_exported_shown_beside_a_model_and_read_by_the_cli(browser, site_url, tmp_path):
    import csv
    import io
    import subprocess
    import sys

    from conftest import ROOT

    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    mount_all(page)
    nivel1 = widget(page, "nivel-1")
    box = nivel1.locator(".exercise-writing[data-writing='por-que-turns']")
    assert box.is_hidden()  # tied to its field: it appears when the field is marked as missing
    nivel1.locator("input[name='nivel-1--campos-faltantes'][value='turns']").check()
    assert box.is_visible()
    box.locator("textarea").fill("Sem turns, o teto de turnos volta a contar do zero e pode nunca disparar.")
    nivel2 = widget(page, "nivel-2")
    words = "Abre com \"w\" e escreve no lugar: <meio> documento na queda, e\nnão há para onde recuar."
    nivel2.get_by_label("A primeira falha, em suas palavras").fill(words)
    page.wait_for_function("() => (localStorage.getItem('licao-2/exercicio/nivel-2') || '').includes('recuar')")
    page.reload()
    mount_all(page)
    nivel2 = widget(page, "nivel-2")
    assert nivel2.get_by_label("A primeira falha, em suas palavras").input_value() == words
    assert widget(page, "nivel-1").locator(".exercise-writing[data-writing='por-que-turns'] textarea").input_value().startswith("Sem turns")
    assert nivel2.locator(".exercise-writing__model").count() == 0  # no model answer before committing
    verify(page, "nivel-2")
    assert nivel2.locator(".exercise-writing__model").count() == 0  # nor after a blank Verificar
    choose(page, "nivel-2", {"falha-escrita": "sobrescreve", "efeito-escrita": "meio-documento"})
    verify(page, "nivel-2")  # the first flaw answered right: its model explanation, not the second's
    model = nivel2.locator(".exercise-writing[data-writing='primeira-falha'] .exercise-writing__model")
    assert "os.replace" in model.inner_text()
    assert nivel2.locator(".exercise-writing[data-writing='segunda-falha'] .exercise-writing__model").count() == 0
    with page.expect_download() as info:
        page.locator(".lesson-export").first.get_by_role("button", name="Exportar respostas").click()
    path = tmp_path / "respostas.json"
    info.value.save_as(path)
    context.close()
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["exercises"]["nivel-2"]["texts"]["primeira-falha"] == words

    def cli(fmt):
        run = subprocess.run([sys.executable, "-m", "graders", "nivel-2", str(path), "--format", fmt],
                             capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert run.returncode in (0, 1), run.stderr
        return run.stdout

    (result,) = json.loads(cli("json"))["submissions"]
    assert next(w for w in result["writings"] if w["id"] == "primeira-falha")["text"] == words
    rows = list(csv.DictReader(io.StringIO(cli("csv"))))
    assert rows[0]["texto:primeira-falha"] == words.replace("\n", "\\n")
    text = cli("text")
    # The student's line break is kept (indented), never written as a literal "\\n".
    assert "Respostas escritas" in text and re.search(r"documento na queda, e\n +não há para onde recuar\.", text)


def test_lesson_visuals_the_ab_figure_and_the_kill_the_process_demo(browser, site_url):
    context = browser.new_context()
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    figure = page.locator("figure.ab-timeline")
    assert "o que a retomada encontra" in figure.locator("figcaption").inner_text()
    steps = figure.locator("li")
    assert steps.count() == 6 and "A(n)" in steps.nth(2).inner_text() and "Queda durante a ferramenta" in steps.nth(3).inner_text()
    demo = page.locator(".torn-demo[data-mounted]")
    demo.get_by_role("button", name="Derrubar cada versão 30 vezes").click()
    demo.locator(".torn-demo__table").wait_for(timeout=VERDICT_TIMEOUT_MS)
    # The lesson's words name the table's columns: a killed process, and a power loss apart.
    headers = demo.locator(".torn-demo__table th[scope='col']").all_inner_texts()
    assert "Processo morto" in headers and "Falta de energia" in headers

    def count(writer, column):
        return int(demo.locator(f"tr[data-writer='{writer}'] td[data-{column}]").get_attribute(f"data-{column}"))

    # A killed process: only the in-place writer leaves unreadable files. A power loss: the temporary
    # renamed without os.fsync can come back empty too; the durable writer never leaves one.
    assert count("atomico", "unreadable") == 0 and count("no-lugar", "unreadable") > 0
    assert count("duravel", "unreadable") == 0 and count("duravel", "power-unreadable") == 0
    assert count("atomico", "power-unreadable") > 0
    # The table teaches the point: a power-loss failure is marked like a killed process's, the
    # durable writer is the one clean row, and the caption says what each column counts.
    colour = lambda writer, column: demo.locator(f"tr[data-writer='{writer}'] td[data-{column}]").evaluate(
        "c => getComputedStyle(c).color")
    assert colour("atomico", "power-unreadable") == colour("no-lugar", "unreadable") != colour("duravel", "unreadable")
    assert demo.locator("tr[data-clean='true']").evaluate_all("rows => rows.map(r => r.dataset.writer)") == ["duravel"]
    caption = demo.locator(".torn-demo__table caption").inner_text()
    for column in headers[1:]:
        assert f"{column}:" in caption, (column, caption)
    dump = demo.locator(".torn-demo__bytes").inner_text()
    assert dump.splitlines()[-1][:4].isalnum() and len(dump.splitlines()) >= 2
    assert demo.get_by_role("button", name="Derrubar cada versão 30 vezes").is_enabled()
    context.close()


def test_old_results_are_marked_focus_returns_and_ctrl_enter_works_anywhere(lesson):
    page, _ = lesson
    section = widget(page, "nivel-2")
    set_code(page, "nivel-2", STARTER)
    verify(page, "nivel-2")
    assert section.get_attribute("data-stale") == "false"
    section.get_by_role("button", name="Executar").click()
    section.locator(".exercise-output__checkpoint").wait_for(timeout=VERDICT_TIMEOUT_MS)
    # Executar on the code just verified gives no verdict and changes none: the results stay current.
    assert section.get_attribute("data-stale") == "false" and section.locator(".exercise-stale").is_hidden()
    set_code(page, "nivel-2", STARTER + "\n# mudou\n")
    assert section.get_attribute("data-stale") == "true" and section.locator(".exercise-stale").is_visible()
    # Verificar from the keyboard: the earlier output goes, the verdict is fresh, focus is back on the button.
    section.locator(".exercise-summary").evaluate("el => el.textContent = ''")
    section.get_by_role("button", name="Verificar").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("el => el.textContent.length > 0", arg=section.locator(".exercise-summary").element_handle(),
                           timeout=VERDICT_TIMEOUT_MS)
    assert section.locator(".exercise-output").is_hidden() and section.get_attribute("data-stale") == "false"
    assert page.evaluate("document.activeElement.textContent") == "Verificar"
    # Ctrl+Enter from an answer, outside the editor.
    section.locator(".exercise-summary").evaluate("el => el.textContent = ''")
    section.locator("fieldset.exercise-question input").first.focus()
    page.keyboard.press("Control+Enter")
    page.wait_for_function("el => el.textContent.length > 0", arg=section.locator(".exercise-summary").element_handle(),
                           timeout=VERDICT_TIMEOUT_MS)


def test_a_syntax_error_is_explained_in_portuguese_with_code(lesson):
    page, _ = lesson
    section = widget(page, "nivel-2")
    text = executar_error(page, "nivel-2", "def run_agent(task, tools, call_model, execute_tool)\n    return {}\n")
    error = section.locator(".exercise-output__error")
    assert "Erro de sintaxe na linha 1" in text and "faltou" in text and "expected" not in text
    assert "Corrija e execute de novo" in text  # Executar's own wording, not Verificar's
    assert "`" not in text and error.locator("code").count() >= 1
    set_code(page, "nivel-2", SOLUTION)


def test_power_loss_is_advice_beside_the_killed_process(lesson):
    """Atomic without os.fsync: every criterion passes, and the timeline marks where a power loss would
    leave an empty checkpoint.json, as advice (not counted), with the file it would leave."""
    from conftest import ROOT

    page, _ = lesson
    source = (ROOT / "tests" / "corpus" / "nivel-2" / "ok_os_replace_no_fsync.py").read_text(encoding="utf-8")
    set_code(page, "nivel-2", source)
    verify(page, "nivel-2")
    got = states(page, "nivel-2")
    assert all(got[c] == "ok" for c in ("escrita-atomica", "ponto-a", "seis-campos", "executavel")), got
    section = widget(page, "nivel-2")
    advised = section.locator(".crash-timeline__mark[data-power='falhou']")
    assert advised.count() > 0
    assert section.locator(".crash-timeline__mark[data-outcome='falhou']").count() == 0
    advised.first.click()
    power = section.locator(".crash-timeline__power")
    assert power.is_visible() and "Numa falta de energia" in power.inner_text()
    assert power.locator(".crash-timeline__badge").inner_text() == "aviso"
    assert "os.fsync" in power.inner_text() and "vazio" in power.inner_text()
    assert "conselho, não conta na nota" in section.locator(".crash-timeline__intro").inner_text()


# --- issue 16: failing reveals nothing; "Mostrar a resposta" reveals, and is recorded ---------------


def _words(text):
    import re

    return re.sub(r"[`*“”\"'().,:;!?—-]", " ", text.lower()).split()


def _leaks(shown: str, question: dict) -> list[str]:
    """Right options of `question` whose words appear in `shown`: five in a row; in multiple choice
    (field names, which the effect questions all name once), the right names said more than the wrong."""
    import re

    said = _words(shown)
    runs = {tuple(said[i:i + 5]) for i in range(len(said) - 4)}
    if question["type"] == "multiple":
        count = {o["id"]: len(re.findall(rf"\b{re.escape(o['text'].strip('`'))}\b", shown)) for o in question["options"]}
        right = [o["id"] for o in question["options"] if o.get("correct")]
        wrong = [o["id"] for o in question["options"] if not o.get("correct")]
        return right if min(count[i] for i in right) > max(count[i] for i in wrong) else []
    leaks = []
    for option in question["options"]:
        if not option.get("correct"):
            continue
        words = _words(option["text"])
        if any(tuple(words[i:i + 5]) in runs for i in range(len(words) - 4)):
            leaks.append(option["id"])
    return leaks


def _feedback_shown(page, exercise_id) -> dict[str, str]:
    """What the criteria list says about each criterion: its title or label, and its messages."""
    section = widget(page, exercise_id)
    return {li.get_attribute("data-criterion"): li.inner_text() for li in section.locator("li[data-criterion]").all()}


def _check_nothing_revealed(page, exercise_id):
    meta = exercises.load(exercise_id)
    titles = {c["id"]: c["title"].replace("`", "") for c in meta["criteria"]}
    labels = {c["id"]: c["label"].replace("`", "") for c in meta["criteria"]}
    shown = _feedback_shown(page, exercise_id)
    section = widget(page, exercise_id)
    for question in meta.get("questions", []):
        cid = question["criterion"]
        assert states(page, exercise_id)[cid] == "falhou", (exercise_id, cid)
        label = section.locator(f"li[data-criterion='{cid}'] .exercise-criterion__label").inner_text()
        assert label == titles[cid] and labels[cid][:30] not in shown[cid], (exercise_id, cid, label)
        everything = "\n".join(shown.values()) + section.locator(".exercise-summary").inner_text()
        assert not _leaks(everything, question), (exercise_id, question["id"], _leaks(everything, question))
    assert section.locator(".exercise-writing__model").count() == 0, exercise_id
    assert section.locator(".exercise-criterion__answer").count() == 0, exercise_id


def _answer_everything_wrong(page, exercise_id):
    for question in exercises.questions(exercise_id):
        name = f"{exercise_id}--{question['id']}"
        if question["type"] == "multiple":  # every field ticked: some are not missing
            for option in question["options"]:
                widget(page, exercise_id).locator(f"input[name='{name}'][value='{option['id']}']").check()
        else:
            wrong = next(o["id"] for o in question["options"] if not o.get("correct"))
            widget(page, exercise_id).locator(f"input[name='{name}'][value='{wrong}']").check()


@pytest.mark.parametrize("exercise_id", ["quiz-sobrescrita", "nivel-1", "nivel-2"])
def test_failing_reveals_no_answer_and_mostrar_a_resposta_does_and_is_exported(browser, site_url, tmp_path, exercise_id):
    import subprocess
    import sys

    from conftest import ROOT

    context = browser.new_context(accept_downloads=True)
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    mount_all(page)
    section = widget(page, exercise_id)
    # A blank Verificar: nothing revealed, and nothing to reveal yet (no real attempt).
    verify(page, exercise_id)
    _check_nothing_revealed(page, exercise_id)
    assert section.get_by_role("button", name="Mostrar a resposta").count() == 0
    # A wrong Verificar: still nothing revealed; now the student may ask for the answer.
    _answer_everything_wrong(page, exercise_id)
    verify(page, exercise_id)
    _check_nothing_revealed(page, exercise_id)
    asked = list(dict.fromkeys(q["criterion"] for q in exercises.questions(exercise_id)))
    assert section.get_by_role("button", name="Mostrar a resposta").count() == len(asked)
    # Reload: the attempt is remembered, the neutral titles too.
    page.wait_for_timeout(600)
    page.reload()
    mount_all(page)
    section = widget(page, exercise_id)
    assert section.get_by_role("button", name="Mostrar a resposta").count() == len(asked)
    _check_nothing_revealed(page, exercise_id)
    # "Mostrar a resposta" on one criterion: its label, right options and model explanations appear.
    target = asked[-1]
    item = section.locator(f"li[data-criterion='{target}']")
    # Asked once before anything is recorded: a tap by mistake, answered "Cancelar", records nothing.
    page.once("dialog", lambda dialog: dialog.dismiss())
    item.get_by_role("button", name="Mostrar a resposta").click()
    page.wait_for_timeout(300)
    assert item.locator(".exercise-criterion__answer").count() == 0
    assert target not in (page.evaluate(f"JSON.parse(localStorage.getItem('licao-2/exercicio/{exercise_id}'))").get("revealed") or [])
    page.once("dialog", lambda dialog: dialog.accept())
    item.get_by_role("button", name="Mostrar a resposta").click()
    item.locator(".exercise-criterion__answer").wait_for(timeout=VERDICT_TIMEOUT_MS)
    meta = exercises.load(exercise_id)
    label = next(c["label"] for c in meta["criteria"] if c["id"] == target).replace("`", "")
    assert item.locator(".exercise-criterion__label").inner_text() == label
    answer = item.locator(".exercise-criterion__answer").inner_text()
    for question in (q for q in meta["questions"] if q["criterion"] == target):
        assert _leaks(answer, question), "the right option is not shown"
    assert states(page, exercise_id)[target] == "falhou"  # revealing changes no verdict
    tied = [w["id"] for w in meta.get("writings", []) if w.get("criterion") == target]
    for writing in tied:
        box = section.locator(f".exercise-writing[data-writing='{writing}']")
        if box.is_visible():
            assert box.locator(".exercise-writing__model").count() == 1
    others = [w["id"] for w in meta.get("writings", []) if w.get("criterion") != target]
    for writing in others:
        assert section.locator(f".exercise-writing[data-writing='{writing}'] .exercise-writing__model").count() == 0
    assert item.get_by_role("button", name="Mostrar a resposta").count() == 0
    # The other criteria keep their neutral titles.
    for other in asked[:-1]:
        title = next(c["title"] for c in meta["criteria"] if c["id"] == other).replace("`", "")
        assert section.locator(f"li[data-criterion='{other}'] .exercise-criterion__label").inner_text() == title
    # The export records it, and the CLI reports it for that criterion.
    page.wait_for_timeout(600)
    with page.expect_download() as info:
        page.locator(".lesson-export").first.get_by_role("button", name="Exportar respostas").click()
    path = tmp_path / "respostas.json"
    info.value.save_as(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["version"] == 3 and doc["exercises"][exercise_id]["revealed"] == [target]
    assert recorder.console_errors == []
    context.close()
    run = subprocess.run([sys.executable, "-m", "graders", exercise_id, str(path), "--isolamento", "reduzido"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 1, run.stderr
    assert f"[falhou] {target} (resposta revelada)" in run.stdout
    assert "1 resposta revelada" in run.stdout.splitlines()[0]
