"""One student's work in several tabs of one browser: every tab follows the others' saves, and two
tabs editing one exercise at once keep both versions and say so (nothing is lost)."""

from __future__ import annotations

import json

import pytest

from test_browser_site import Recorder
from test_browser_widget import editor_text, widget

pytestmark = pytest.mark.browser

# These tests are about storage, not grading: Python's worker is never started (three Pyodides on
# a loaded machine would only slow them down).
NO_PYTHON = "window.Worker = class { postMessage() {} terminate() {} addEventListener() {} removeEventListener() {} };"
ASIDE = "licao-2/guardado-a-parte/"


@pytest.fixture
def tabs(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(NO_PYTHON)
    recorder = Recorder(context)

    def open_tab():
        page = context.new_page()
        page.goto(site_url + "licao-2/")
        widget(page, "nivel-2").wait_for()
        return page

    yield open_tab, recorder
    assert recorder.console_errors == [], recorder.console_errors
    context.close()


def type_at_start(page, text):
    widget(page, "nivel-2").locator(".cm-content").click()
    page.keyboard.press("Control+Home")
    page.keyboard.insert_text(text)


def wait_for_code(page, text):
    page.wait_for_function(
        "t => [...document.querySelectorAll(\"section[data-exercise='nivel-2'] .cm-line\")].some(l => l.textContent.includes(t))",
        arg=text, timeout=10_000)


def everything_stored(page) -> str:
    return json.dumps(page.evaluate("Object.fromEntries(Object.keys(localStorage).map(k => [k, localStorage.getItem(k)]))"), ensure_ascii=False)


def test_each_tab_follows_the_others_saves(tabs):
    open_tab, _ = tabs
    first, second = open_tab(), open_tab()
    type_at_start(second, "# editado na aba 2\n")
    wait_for_code(first, "# editado na aba 2")  # tab 1 shows tab 2's edit, without a reload
    type_at_start(first, "# e depois na aba 1\n")
    wait_for_code(second, "# e depois na aba 1")
    third = open_tab()
    code = editor_text(third, "nivel-2")
    assert "# editado na aba 2" in code and "# e depois na aba 1" in code, code
    for page in (first, second, third):
        assert widget(page, "nivel-2").locator(".exercise-conflict").is_hidden()


def test_two_tabs_editing_at_once_keep_both_versions(tabs):
    open_tab, _ = tabs
    first, second = open_tab(), open_tab()
    for page in (first, second):  # the cursor in place in both, so the two edits land together
        widget(page, "nivel-2").locator(".cm-content").click()
        page.keyboard.press("Control+Home")
    first.keyboard.insert_text("# versão da aba 1\n")
    second.keyboard.insert_text("# versão da aba 2\n")
    for page in (first, second):  # both students' screens say so
        box = widget(page, "nivel-2").locator(".exercise-conflict")
        box.wait_for(state="visible", timeout=10_000)
        assert "Nada se perdeu" in box.inner_text()
    stored = everything_stored(first)
    assert "# versão da aba 1" in stored and "# versão da aba 2" in stored
    assert any(k.startswith(ASIDE) for k in json.loads(stored))
    # A third tab opens on the version saved last, says there is another, and can swap them.
    third = open_tab()
    box = widget(third, "nivel-2").locator(".exercise-conflict")
    assert box.is_visible()
    before = editor_text(third, "nivel-2")
    shown, other = ("# versão da aba 1", "# versão da aba 2") if "# versão da aba 1" in before else ("# versão da aba 2", "# versão da aba 1")
    assert other not in before
    box.get_by_role("button", name="Trocar pela outra versão").click()
    wait_for_code(third, other)
    assert shown not in editor_text(third, "nivel-2")
    wait_for_code(first, other)  # the other tabs follow the swap
    assert shown in everything_stored(third)  # the version swapped out is kept aside in turn
    box.get_by_role("button", name="Ficar com esta").click()
    for page in (first, second, third):
        widget(page, "nivel-2").locator(".exercise-conflict").wait_for(state="hidden", timeout=10_000)
    assert other in editor_text(second, "nivel-2")
