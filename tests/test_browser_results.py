"""Results where the eye is: the first verdict moves nothing the student looks at, and Ctrl+Enter
in the editor brings the summary into view without taking the focus from the editor."""

from __future__ import annotations

import pytest

from graders import exercises
from test_browser_site import Recorder
from test_browser_widget import VERDICT_TIMEOUT_MS, widget

pytestmark = pytest.mark.browser

SECTION = "section[data-exercise='nivel-2']"


@pytest.fixture(scope="module")
def page(browser, site_url):
    """One laptop-sized page (one Python) for the flows below, in their order."""
    context = browser.new_context(viewport={"width": 1280, "height": 720}, accept_downloads=True)
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    widget(page, "nivel-2").wait_for()
    page.wait_for_function(f"document.querySelector(\"{SECTION} .exercise-status\").textContent === 'Python pronto.'",
                           timeout=VERDICT_TIMEOUT_MS)
    yield page
    assert recorder.console_errors == [], recorder.console_errors
    context.close()


def doc_top(page, selector) -> float:
    return page.evaluate("s => document.querySelector(s).getBoundingClientRect().top + scrollY", selector)


def wait_for_verdict(page):
    page.wait_for_function(f"document.querySelector(\"{SECTION} .exercise-summary\").textContent.length > 0 && "
                           f"!document.querySelector(\"{SECTION} .exercise-toolbar button.md-button--primary\").disabled",
                           timeout=VERDICT_TIMEOUT_MS)


def test_the_first_verdict_moves_none_of_the_results(page):
    section = widget(page, "nivel-2")
    watched = [f"{SECTION} .exercise-summary", f"{SECTION} .exercise-criteria__title", f"{SECTION} .exercise-criteria"]
    before = [doc_top(page, s) for s in watched]
    section.get_by_role("button", name="Verificar").click()  # the first Verificar: the work gets saved too
    wait_for_verdict(page)
    page.wait_for_timeout(1000)  # a note about keeping the work comes after the save, asynchronously
    after = [doc_top(page, s) for s in watched]
    assert after == pytest.approx(before, abs=1), dict(zip(watched, zip(before, after)))
    # Whatever note the tap brought is below the results, never between the button and them.
    note = section.locator(".exercise-note")
    if note.is_visible():
        assert doc_top(page, f"{SECTION} .exercise-note") > doc_top(page, f"{SECTION} .exercise-criteria")


def test_ctrl_enter_brings_the_summary_into_view_and_keeps_the_focus(page):
    section = widget(page, "nivel-2")
    section.locator(".cm-content").evaluate("el => el.scrollIntoView({block: 'start'})")
    page.evaluate("scrollBy(0, -80)")  # clear of the sticky header
    section.locator(".cm-line").first.click()
    summary = f"{SECTION} .exercise-summary"
    in_view = ("s => { const r = document.querySelector(s).getBoundingClientRect();"
               " const h = document.querySelector('.md-header').getBoundingClientRect().bottom;"
               " return r.top >= h && r.bottom <= innerHeight; }")
    assert not page.evaluate(in_view, summary), "the summary is on screen already: the test proves nothing"
    page.evaluate(f"document.querySelector(\"{summary}\").textContent = ''")
    page.keyboard.press("Control+Enter")
    wait_for_verdict(page)
    assert page.evaluate(in_view, summary)
    assert page.evaluate("document.activeElement.closest('.cm-editor') !== null"), "the editor lost the focus"
    assert page.locator(summary).get_attribute("aria-live") == "polite"  # announced


def test_export_waits_where_the_work_ends_and_says_what_it_saved(page):
    areas = page.locator(".lesson-export[data-mounted]")
    last = areas.last
    last.scroll_into_view_if_needed()
    # After the last exercise: the student does not scroll back past Nível 1 to hand the work in.
    assert last.evaluate("el => el.getBoundingClientRect().top + scrollY") > doc_top(page, SECTION)
    assert page.evaluate("document.querySelectorAll('.lesson-export')[document.querySelectorAll('.lesson-export').length - 1]"
                         ".compareDocumentPosition(document.querySelector(\"section[data-exercise='nivel-2']\")) & "
                         "Node.DOCUMENT_POSITION_PRECEDING")
    last.locator("input.lesson-export__name").fill("Ana Júlia")
    done = last.locator(".lesson-export__done")
    height = done.bounding_box()["height"]
    with page.expect_download() as info:
        last.get_by_role("button", name="Exportar respostas").click()
    name = info.value.suggested_filename
    assert name == "respostas-licao-2-ana-julia.json"
    assert name in done.inner_text() and done.get_attribute("role") == "status"
    assert done.bounding_box()["height"] == pytest.approx(height, abs=1)  # its line was kept: nothing moved
    # How the grade is computed, as the instructor's CLI computes it (graders/cli/classreport.py).
    last.get_by_text("Como o professor corrige").click()
    how = last.locator(".lesson-export__grading").inner_text()
    total = sum(len(exercises.criterion_ids(ex)) for ex in exercises.EXERCISE_IDS)
    assert f"({total} ao todo)" in how and "uma pessoa as lê" in how and "10" in how
