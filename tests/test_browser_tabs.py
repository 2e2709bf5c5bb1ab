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


# A tab that has not heard of another tab's save yet, made on purpose (every tab of these tests has it): while `__holdStorage` is set,
# the storage events the page listens to wait, and `__releaseStorage()` delivers them. On a real
# machine that is the instant between two tabs' edits; holding it makes the test deterministic.
HOLD_STORAGE = """(() => {
  const held = [];
  const add = EventTarget.prototype.addEventListener;
  window.__holdStorage = false;
  window.__releaseStorage = () => {
    window.__holdStorage = false;
    for (const [listener, event] of held.splice(0)) listener.call(window, event);
  };
  window.addEventListener = function (type, listener, options) {
    if (type !== "storage") return add.call(this, type, listener, options);
    const wrapped = (event) => (window.__holdStorage ? held.push([listener, event]) : listener.call(window, event));
    return add.call(this, type, wrapped, options);
  };
})();"""
RECORD = "licao-2/exercicio/nivel-2"


@pytest.fixture
def tabs(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(NO_PYTHON)
    context.add_init_script(HOLD_STORAGE)
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
    one, two = "# versão da aba 1", "# versão da aba 2"
    second.evaluate("window.__holdStorage = true")  # tab 2 has not heard of tab 1's save yet
    type_at_start(first, one + "\n")
    first.wait_for_function("([k, t]) => (localStorage.getItem(k) ?? '').includes(t)", arg=[RECORD, one], timeout=10_000)
    type_at_start(second, two + "\n")
    boxes = [widget(page, "nivel-2").locator(".exercise-conflict") for page in (first, second)]
    boxes[1].wait_for(state="visible", timeout=10_000)  # tab 2's save found tab 1's and kept it aside
    second.evaluate("window.__releaseStorage()")
    boxes[0].wait_for(state="visible", timeout=10_000)  # tab 1 heard tab 2's save: both screens say so
    for box in boxes:
        assert "Nada se perdeu" in box.inner_text()
    stored = everything_stored(first)
    assert one in stored and two in stored
    assert any(k.startswith(ASIDE) for k in json.loads(stored))
    # A third tab opens on the version saved last, says there is another, and can swap them.
    third = open_tab()
    box = widget(third, "nivel-2").locator(".exercise-conflict")
    assert box.is_visible()
    before = editor_text(third, "nivel-2")
    shown, other = (one, two) if one in before else (two, one)
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


# Another tab's save as this tab finds it in storage before it hears of it (the storage event never
# fires in the document that writes, so this tab has not): a newer version with other code.
OTHER_TAB_SAVED = """code => localStorage.setItem("licao-2/exercicio/nivel-2",
  JSON.stringify({ version: 1, rev: 7, code, answers: {}, updatedAt: new Date().toISOString() }))"""
# The browser refuses every new key (storage full): an aside cannot be kept, a record can be replaced.
ASIDES_REFUSED = """prefix => {
  const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (key, value) {
    if (String(key).startsWith(prefix)) throw new DOMException("cheio", "QuotaExceededError");
    return setItem.call(this, key, value);
  };
}"""


def test_a_version_that_cannot_be_kept_aside_is_not_overwritten(tabs):
    open_tab, _ = tabs
    page = open_tab()
    other = "# versão que a outra aba guardou"
    page.evaluate(OTHER_TAB_SAVED, other + "\n")
    page.evaluate(ASIDES_REFUSED, ASIDE)
    type_at_start(page, "# versão desta aba\n")
    alert = widget(page, "nivel-2").locator(".exercise-alert")
    alert.wait_for(state="visible", timeout=10_000)
    assert "não foi guardada" in alert.inner_text()
    assert other in everything_stored(page)  # the other tab's work is still there
    assert "# versão desta aba" in editor_text(page, "nivel-2")  # and this tab's is still on screen
