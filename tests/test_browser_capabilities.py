"""What the page does where the browser lacks something it uses (tested for itself, never inferred),
where Python cannot start, and how it keeps the student's work when storage may be cleared."""

from __future__ import annotations

import pytest

from test_browser_site import Recorder
from test_browser_widget import (RIGHT_DIAGNOSIS, SOLUTION, STOPPED, VERDICT_TIMEOUT_MS, choose, mount_all, set_code,
                                 verify, verify_then_stop, widget)

pytestmark = pytest.mark.browser

INFINITE = "def run_agent(task, tools, call_model, execute_tool):\n    while True:\n        pass\n"
# WebKitGTK 2.50 does this on a COOP/COEP page: crossOriginIsolated, and no SharedArrayBuffer global.
NO_SHARED_MEMORY = "delete globalThis.SharedArrayBuffer;"
UNHANDLED = "window.__unhandled = []; addEventListener('unhandledrejection', (e) => __unhandled.push(String(e.reason)));"
EXERCISES = ("quiz-sobrescrita", "nivel-1", "nivel-2")


def new_page(browser, url, *scripts):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    for script in (UNHANDLED, *scripts):
        context.add_init_script(script)
    recorder = Recorder(context)
    page = context.new_page()
    page_errors = []
    page.on("pageerror", lambda e: page_errors.append(str(e)))
    page.goto(url + "licao-2/")
    return context, page, recorder, page_errors


def test_an_isolated_page_without_shared_memory_mounts_and_parar_replaces_python(browser, isolated_site_url):
    context, page, recorder, page_errors = new_page(browser, isolated_site_url, NO_SHARED_MEMORY)
    assert page.evaluate("crossOriginIsolated && typeof SharedArrayBuffer") == "undefined"
    mount_all(page)  # every exercise mounts: none is left blank
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == "Todas as verificações passaram."
    set_code(page, "nivel-2", INFINITE)
    wasm_before = sum(u.endswith("pyodide.asm.wasm") for u in recorder.page_requests)
    assert verify_then_stop(page, "nivel-2") == STOPPED
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == "Todas as verificações passaram."
    # Stopped without interrupts: by another Python (restored from the page's snapshot), not in place.
    assert sum(u.endswith("pyodide.asm.wasm") for u in recorder.page_requests) > wasm_before
    assert page.evaluate("__unhandled") == [] and page_errors == []
    assert recorder.console_errors == []
    context.close()


def unavailable(page, exercise_id):
    return widget(page, exercise_id).locator(".exercise-unavailable")


def test_a_python_that_cannot_load_says_so_in_every_exercise_and_tries_again(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(UNHANDLED)
    context.route("**/pyodide.asm.wasm", lambda route: route.abort())
    page = context.new_page()
    page_errors = []
    page.on("pageerror", lambda e: page_errors.append(str(e)))
    page.goto(site_url + "licao-2/")
    mount_all(page)
    for exercise in EXERCISES:
        box = unavailable(page, exercise)
        box.wait_for(state="visible", timeout=4 * VERDICT_TIMEOUT_MS)  # a silent stall is reported after 120 s
        text = box.inner_text()
        assert "Não foi possível iniciar o Python" in text and "Exportar respostas" in text, text
        assert box.get_by_role("button", name="Tentar de novo").is_visible()
    # Editing still works, and Verificar (which tries to start Python again, twice) explains.
    set_code(page, "nivel-2", "# meu rascunho\n")
    summary = widget(page, "nivel-2").locator(".exercise-summary")
    widget(page, "nivel-2").get_by_role("button", name="Verificar").click()
    page.wait_for_function("document.querySelector(\"section[data-exercise='nivel-2'] .exercise-summary\").textContent.length > 0",
                           timeout=4 * VERDICT_TIMEOUT_MS)  # two more boots that fail: slow on a loaded machine
    assert "O Python do navegador falhou" in summary.inner_text(), summary.inner_text()
    assert unavailable(page, "nivel-2").is_visible()
    # The network is back: "Tentar de novo" starts Python, and the exercise is graded.
    context.unroute("**/pyodide.asm.wasm")
    unavailable(page, "quiz-sobrescrita").get_by_role("button", name="Tentar de novo").click()
    widget(page, "quiz-sobrescrita").locator(".exercise-status").filter(has_text="Python pronto").wait_for(timeout=VERDICT_TIMEOUT_MS)
    for exercise in EXERCISES:
        assert unavailable(page, exercise).is_hidden()
    choose(page, "quiz-sobrescrita", {"resposta": "meio-documento"})
    assert verify(page, "quiz-sobrescrita") == "A verificação passou."
    assert page.evaluate("__unhandled") == [] and page_errors == []
    context.close()


def test_a_browser_without_webassembly_is_told_so_and_nothing_throws(browser, site_url):
    context, page, recorder, page_errors = new_page(browser, site_url, "delete globalThis.WebAssembly;")
    mount_all(page)
    box = unavailable(page, "nivel-2")
    box.wait_for(state="visible", timeout=VERDICT_TIMEOUT_MS)
    assert "WebAssembly" in box.inner_text()
    choose(page, "quiz-sobrescrita", {"resposta": "meio-documento"})
    summary = verify(page, "quiz-sobrescrita")
    assert "Não dá para executar Python neste navegador" in summary, summary
    assert page.evaluate("__unhandled") == [] and page_errors == []
    assert recorder.console_errors == []
    context.close()


def persist_stub(granted: bool) -> str:
    """navigator.storage.persist() answered by the test, counting the page's requests."""
    value = "true" if granted else "false"
    return ("window.__persistCalls = 0; if (navigator.storage) { navigator.storage.persisted = async () => false;"
            f" navigator.storage.persist = async () => {{ window.__persistCalls += 1; return {value}; }}; }}")


NOTE = ".exercise-note"


def test_persistent_storage_is_requested_once_there_is_work_to_keep(browser, site_url):
    context, page, recorder, page_errors = new_page(browser, site_url, persist_stub(True))
    mount_all(page)
    page.wait_for_timeout(1000)
    assert page.evaluate("__persistCalls") == 0  # just visiting asks for nothing
    choose(page, "quiz-sobrescrita", {"resposta": "lento"})
    page.wait_for_function("window.__persistCalls === 1")
    choose(page, "quiz-sobrescrita", {"resposta": "meio-documento"})
    page.wait_for_timeout(1000)
    assert page.evaluate("__persistCalls") == 1
    assert page.locator(NOTE).filter(has_text="Exportar respostas").count() == 0  # granted: nothing to say
    assert recorder.console_errors == [] and page_errors == []
    context.close()


def test_storage_not_kept_is_said_once_with_the_export_reminded(browser, site_url):
    context, page, recorder, page_errors = new_page(browser, site_url, persist_stub(False))
    mount_all(page)
    choose(page, "quiz-sobrescrita", {"resposta": "lento"})
    note = widget(page, "quiz-sobrescrita").locator(NOTE)
    note.wait_for(state="visible")
    assert "7 dias" in note.inner_text() and "Exportar respostas" in note.inner_text()
    note.get_by_role("button", name="Entendi").click()
    assert note.is_hidden()
    page.reload()
    mount_all(page)
    choose(page, "quiz-sobrescrita", {"resposta": "meio-documento"})
    page.wait_for_function("window.__persistCalls === 1")  # asked again on this visit, told no more
    page.wait_for_timeout(1000)
    assert page.locator(f"{NOTE}:visible").count() == 0
    assert recorder.console_errors == [] and page_errors == []
    context.close()


def test_storage_cleared_under_the_page_is_reported_and_the_work_saved_again(browser, site_url):
    context, page, recorder, page_errors = new_page(browser, site_url)
    mount_all(page)
    choose(page, "quiz-sobrescrita", {"resposta": "lento"})
    page.wait_for_function("localStorage.getItem('licao-2/exercicio/quiz-sobrescrita') !== null")
    # What Safari does after 7 days without a visit, or "clear site data": every kind of storage.
    cdp = context.new_cdp_session(page)
    cdp.send("Storage.clearDataForOrigin", {"origin": site_url.rstrip("/"), "storageTypes": "all"})
    # The protocol answers before the renderer's copy of localStorage has heard of the clear (seen once:
    # the value still there right after the call): wait for it, as a page would only see it later too.
    page.wait_for_function("localStorage.getItem('licao-2/exercicio/quiz-sobrescrita') === null", timeout=10_000)
    choose(page, "quiz-sobrescrita", {"resposta": "meio-documento"})
    alert = widget(page, "quiz-sobrescrita").locator(".exercise-alert")
    alert.wait_for(state="visible")
    assert "O navegador apagou" in alert.inner_text() and "Exportar respostas" in alert.inner_text()
    page.wait_for_function("localStorage.getItem('licao-2/exercicio/quiz-sobrescrita') !== null")
    page.reload()
    mount_all(page)
    assert widget(page, "quiz-sobrescrita").locator("input[value='meio-documento']").is_checked()
    assert verify(page, "quiz-sobrescrita") == "A verificação passou."
    assert page.evaluate("__unhandled") == [] and page_errors == []
    assert recorder.console_errors == []
    context.close()
