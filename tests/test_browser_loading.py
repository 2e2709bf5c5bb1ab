"""The lesson on a slow line and a first visit, in a real headless Chromium: text before Python,
Python held back on slow connections, the hot spare Python that "Parar" switches to, and the
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
SPARE_STATE = f"() => {RUNTIME}.then(r => r.spare.state)"


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


def test_parar_on_a_first_visit_switches_to_the_hot_spare(browser, site_url):
    """Not cross-origin isolated (a first visit on a plain server): once the page is quiet after the
    first verdict, a second Python boots; Parar then hands the editor back on it, without loading
    Python again, and the next verdict comes from it. A new spare boots when the page is quiet."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    assert page.evaluate("crossOriginIsolated") is False
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    poll(page, SPARE_STATE, "ready")
    loaded = wasm_requests(recorder)
    assert loaded >= 2  # the page's Python and the spare (from the HTTP cache)
    page.evaluate(f"{RUNTIME}.then(r => {{ window.__spare = r.spare.current.process; }})")

    set_code(page, "nivel-2", INFINITE)
    statuses = []
    page.expose_function("recordStatus", lambda text: statuses.append(text))
    page.evaluate("""() => new MutationObserver(() => recordStatus(document.querySelector(
        "section[data-exercise='nivel-2'] .exercise-status").textContent)).observe(
        document.querySelector("section[data-exercise='nivel-2'] .exercise-status"),
        {childList: true, characterData: true, subtree: true})""")
    assert verify_then_stop(page, "nivel-2") == STOPPED
    assert "while True" in editor_code(page)  # the switch loses nothing the student typed
    assert page.evaluate(f"{RUNTIME}.then(r => r.process === window.__spare && r.state === 'ready')")
    assert wasm_requests(recorder) == loaded, "Parar loaded Python again instead of using the spare"
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    assert page.evaluate(f"{RUNTIME}.then(r => r.process === window.__spare)")  # graded by the spare
    assert "Carregando Python…" not in statuses
    # Quiet again: the next spare boots, for the next Parar.
    poll(page, SPARE_STATE, "ready")
    assert wasm_requests(recorder) == loaded + 1
    assert recorder.console_errors == []
    context.close()


def editor_code(page) -> str:
    return widget(page, "nivel-2").locator(".cm-content").evaluate(
        "el => [...el.querySelectorAll('.cm-line')].map(l => l.textContent).join('\\n')")


def test_the_time_limit_also_switches_to_the_spare(browser, site_url):
    context = browser.new_context()
    context.add_init_script("globalThis.LESSON_TIME_LIMIT_MS = 3000")
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    poll(page, SPARE_STATE, "ready")
    loaded = wasm_requests(recorder)
    page.evaluate(f"{RUNTIME}.then(r => {{ window.__spare = r.spare.current.process; }})")
    set_code(page, "nivel-2", INFINITE)
    assert "laço infinito" in verify(page, "nivel-2")
    assert page.evaluate(f"{RUNTIME}.then(r => r.process === window.__spare && r.state === 'ready')")
    assert wasm_requests(recorder) == loaded  # no Python loaded again (a new spare waits for a quiet moment)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    assert recorder.console_errors == []
    context.close()


def test_no_spare_where_memory_is_scarce(browser, site_url):
    context = browser.new_context()
    context.add_init_script("Object.defineProperty(Navigator.prototype, 'deviceMemory', {get: () => 2})")
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    page.wait_for_timeout(6000)  # past the quiet moment a spare would wait for
    assert page.evaluate(SPARE_STATE) == "none"
    assert wasm_requests(recorder) == 1
    # Parar still works: Python is reloaded, as before the spare existed.
    set_code(page, "nivel-2", INFINITE)
    assert verify_then_stop(page, "nivel-2") == STOPPED
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    assert wasm_requests(recorder) == 2
    context.close()


def test_cross_origin_isolated_pages_keep_no_spare_and_interrupt_in_place(browser, isolated_site_url):
    context, page, recorder = open_isolated_lesson(browser, isolated_site_url)
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    page.wait_for_timeout(6000)
    assert page.evaluate(SPARE_STATE) == "none"
    set_code(page, "nivel-2", INFINITE)
    assert verify_then_stop(page, "nivel-2") == STOPPED
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    assert wasm_requests(recorder) == 1  # interrupted in place, never reloaded
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
