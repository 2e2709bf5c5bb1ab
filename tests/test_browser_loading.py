"""The lesson on a slow line and a first visit, in a real headless Chromium: text before Python,
Python held back on slow connections, the Python that "Parar" restores from the page's snapshot, and the
two accessibility audits Lighthouse flagged (axe rules aria-dialog-name and td-has-header)."""

from __future__ import annotations

import json
import time

import pytest

from test_browser_a11y import AXE
from test_browser_site import Recorder, load_theme
from test_browser_widget import (
    RIGHT_DIAGNOSIS, SOLUTION, STOPPED, choose, open_isolated_lesson, set_code, verify, verify_then_stop, widget,
)

pytestmark = pytest.mark.browser

ALL_PASS = "Todas as verificações passaram."
INFINITE = "def run_agent(task, tools, call_model, execute_tool):\n    while True:\n        pass\n"
# Every Python worker the page creates, with the page's clock at that moment (the theme's
# search worker is not Python).
WATCH_WORKERS = """
window.__workerTimes = [];
const NativeWorker = window.Worker;
window.Worker = class extends NativeWorker {
  constructor(url, ...rest) {
    super(url, ...rest);
    if (String(url).includes("python-worker")) window.__workerTimes.push(performance.now());
  }
};
"""
FCP = "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null"
# The page's own runtime module (the same instance the widgets use).
RUNTIME = "import(new URL('assets/javascripts/lesson/runtime.js', document.baseURI.replace(/licao-2\\/.*$/, ''))).then(m => m.sharedRuntime())"


def wasm_requests(recorder) -> int:
    return sum(u.endswith("/pyodide/pyodide.asm.wasm") for u in recorder.page_requests)


def poll(page, script: str, expected, timeout_s: float = 60):
    """Poll an async page script until it returns `expected`."""
    deadline = time.monotonic() + timeout_s
    while (value := page.evaluate(script)) != expected:
        assert time.monotonic() < deadline, f"{script} stayed {value!r}, expected {expected!r}"
        page.wait_for_timeout(250)


def connection(**fields) -> str:
    values = ", ".join(f"{k}: {json.dumps(v)}" for k, v in fields.items())
    return f"Object.defineProperty(Navigator.prototype, 'connection', {{get: () => ({{{values}}})}})"


def test_python_starts_only_after_the_text_is_painted(browser, site_url):
    context = browser.new_context(viewport={"width": 390, "height": 800})
    context.add_init_script(WATCH_WORKERS)
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    page.wait_for_function("window.__workerTimes.length > 0", timeout=30_000)
    fcp = page.evaluate(FCP)
    assert fcp is not None, "the page never painted its text"
    # The one Python worker (from <head>) was created after the first contentful paint, so
    # nothing of Python's competed with the theme's CSS for the line before the text showed.
    assert page.evaluate("window.__workerTimes") and min(page.evaluate("window.__workerTimes")) >= fcp
    widget(page, "nivel-2").locator(".exercise-status").filter(has_text="Python pronto.").wait_for(timeout=60_000)
    assert sum(u.endswith("/python-worker.js") for u in recorder.page_requests) == 1
    assert recorder.console_errors == []
    context.close()


@pytest.mark.parametrize("line", [{"effectiveType": "3g"}, {"effectiveType": "2g"}, {"effectiveType": "4g", "saveData": True}])
def test_on_a_slow_line_python_starts_when_an_exercise_nears_the_screen(browser, site_url, line):
    context = browser.new_context(viewport={"width": 390, "height": 800})
    context.add_init_script(connection(**line))
    context.add_init_script(WATCH_WORKERS)
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(3000)  # well past the page's load and its first paint
    assert page.evaluate("window.__workerTimes") == []
    assert not any("/pyodide/" in u for u in recorder.requests), "Python loaded at the top of the page on a slow line"
    # Near the screen, not yet on it: Python gets a screenful of reading to boot.
    page.evaluate("""() => {
        const box = document.querySelector("section[data-exercise='quiz-sobrescrita']").getBoundingClientRect();
        window.scrollTo(0, window.scrollY + box.top - 1.5 * innerHeight);
    }""")
    page.wait_for_function("window.__workerTimes.length === 1", timeout=10_000)
    assert page.evaluate("document.querySelector(\"section[data-exercise='quiz-sobrescrita']\").getBoundingClientRect().top > innerHeight")
    widget(page, "nivel-2").locator(".exercise-status").filter(has_text="Python pronto.").wait_for(timeout=60_000)
    assert recorder.console_errors == []
    context.close()


def test_on_a_fast_line_python_does_not_wait_for_an_exercise(browser, site_url):
    context = browser.new_context(viewport={"width": 390, "height": 800})
    context.add_init_script(connection(effectiveType="4g", saveData=False))
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    assert page.evaluate("scrollY") == 0
    page.wait_for_function("document.querySelector(\"section[data-exercise='quiz-sobrescrita']\").getBoundingClientRect().top > 2 * innerHeight")
    widget(page, "nivel-2").locator(".exercise-status").filter(has_text="Python pronto.").wait_for(timeout=60_000)
    assert any(u.endswith("/pyodide/pyodide.asm.wasm") for u in recorder.requests)
    context.close()


def watch_status(page, exercise_id="nivel-2") -> list[str]:
    """Every text the exercise's status line shows from now on."""
    statuses = []
    page.expose_function("recordStatus", lambda text: statuses.append(text))
    page.evaluate("""id => new MutationObserver(() => recordStatus(document.querySelector(
        `section[data-exercise='${id}'] .exercise-status`).textContent)).observe(
        document.querySelector(`section[data-exercise='${id}'] .exercise-status`),
        {childList: true, characterData: true, subtree: true})""", exercise_id)
    return statuses


def test_parar_right_after_the_first_verdict_restores_python_from_the_snapshot(browser, site_url):
    """Not cross-origin isolated (a first visit on a plain server): the first Python made a memory
    snapshot; Parar, at once after the first verdict, replaces the worker by one restored from it,
    the status line says so meanwhile, and the next verdict comes from the restored Python."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    assert page.evaluate("crossOriginIsolated") is False
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    assert page.evaluate(f"{RUNTIME}.then(r => Boolean(r.booted.fresh && r.snapshot && r.snapshot.blob.size > 0))")
    page.evaluate(f"{RUNTIME}.then(r => {{ window.__first = r.process; }})")
    set_code(page, "nivel-2", INFINITE)
    statuses = watch_status(page)
    assert verify_then_stop(page, "nivel-2") == STOPPED
    assert "while True" in editor_code(page)  # the switch loses nothing the student typed
    poll(page, f"() => {RUNTIME}.then(r => r.state)", "ready")
    assert page.evaluate(f"{RUNTIME}.then(r => r.process !== window.__first && r.booted.restored === true)")
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    assert "Reiniciando o Python…" in statuses and "Carregando Python…" not in statuses
    assert statuses[-1] == "Verificação concluída."
    assert recorder.console_errors == []
    context.close()


def editor_code(page) -> str:
    return widget(page, "nivel-2").locator(".cm-content").evaluate(
        "el => [...el.querySelectorAll('.cm-line')].map(l => l.textContent).join('\\n')")


def test_the_time_limit_also_restores_python_from_the_snapshot(browser, site_url):
    context = browser.new_context()
    context.add_init_script("globalThis.LESSON_TIME_LIMIT_MS = 3000")
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", INFINITE)
    assert "laço infinito" in verify(page, "nivel-2")
    poll(page, f"() => {RUNTIME}.then(r => [r.state, r.booted.restored === true])", ["ready", True])
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    assert recorder.console_errors == []
    context.close()


def test_parar_restores_the_same_way_where_memory_is_scarce(browser, site_url):
    """A phone reporting 2 GB keeps one Python, as every page now does, and Parar restores it."""
    context = browser.new_context()
    context.add_init_script("Object.defineProperty(Navigator.prototype, 'deviceMemory', {get: () => 2})")
    context.add_init_script(WATCH_WORKERS)
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    page.wait_for_timeout(3000)
    assert len(page.evaluate("window.__workerTimes")) == 1  # one Python at rest: no second one boots
    set_code(page, "nivel-2", INFINITE)
    assert verify_then_stop(page, "nivel-2") == STOPPED
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    assert page.evaluate(f"{RUNTIME}.then(r => r.booted.restored === true)")
    assert len(page.evaluate("window.__workerTimes")) == 2
    assert recorder.console_errors == []
    context.close()


def test_cross_origin_isolated_pages_interrupt_in_place(browser, isolated_site_url):
    context, page, recorder = open_isolated_lesson(browser, isolated_site_url, WATCH_WORKERS)
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    set_code(page, "nivel-2", INFINITE)
    assert verify_then_stop(page, "nivel-2") == STOPPED
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    assert wasm_requests(recorder) == 1  # interrupted in place, never reloaded
    assert len(page.evaluate("window.__workerTimes")) == 1
    context.close()


def test_the_search_dialog_is_named_and_every_table_cell_has_a_header(browser, site_url):
    context = browser.new_context(viewport={"width": 390, "height": 800})
    page = context.new_page()
    for path in ("", "licao-2/"):
        page.goto(site_url + path)
        load_theme(page)  # on the lesson, the theme (which builds the dialog) comes for the search
        page.wait_for_function("document.querySelector('.md-search[role=dialog]')?.hasAttribute('aria-label')", timeout=60_000)
        page.add_script_tag(path=str(AXE))
        result = page.evaluate(
            "() => axe.run(document, {runOnly: {type: 'rule', values: ['aria-dialog-name', 'td-has-header']}})"
            ".then(r => ({violations: r.violations.map(v => v.id), passes: r.passes.map(p => p.id)}))")
        assert result["violations"] == [], (path, result)
        assert "aria-dialog-name" in result["passes"]
    assert "td-has-header" in result["passes"]  # the lesson's comparison table was checked, and passes
    context.close()
