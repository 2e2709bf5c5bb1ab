"""Smoke test of the Zensical build (`make build BUILDER=zensical`) in a real Chromium, on a plain static
server: the lesson opens, the reference solution of Nível 2 passes every criterion (with no serious
WCAG violation on screen), and once the server is gone the lesson reloads and grades again. What a grader says is its own business: only
"every criterion passes" is asserted here."""

from __future__ import annotations

import shutil

import pytest

from conftest import _serve
from test_browser_a11y import assert_no_serious_violations
from test_browser_offline import Host, first_visit
from test_browser_site import Recorder, load_theme
from test_browser_widget import RIGHT_DIAGNOSIS, SOLUTION, choose, mount_all, set_code, states, verify

pytestmark = pytest.mark.browser


@pytest.fixture
def zensical_host(zensical_site, tmp_path):
    served = tmp_path / "site"
    shutil.copytree(zensical_site, served)
    host = Host(served)
    yield host
    host.down()


def reference_solution_passes(page) -> dict:
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    verify(page, "nivel-2")
    return states(page, "nivel-2")


def test_zensical_build_grades_the_reference_solution_online_and_offline(browser, zensical_host):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    recorder = Recorder(context)
    try:
        page = first_visit(context, zensical_host.url)  # the lesson, its service worker, Python kept
        assert page.locator('meta[name="generator"]').get_attribute("content").startswith("zensical-")
        assert "Checkpoints" in page.locator("h1").inner_text()
        assert page.locator("section.exercise").count() == 3
        got = reference_solution_passes(page)
        assert got and set(got.values()) == {"ok"}, got
        # Zensical's theme is not mkdocs-material's: lesson.css evens out what axe-core would flag.
        assert_no_serious_violations(page, "the Zensical build's lesson after a check")

        zensical_host.down()
        page.reload()
        assert "Checkpoints" in page.locator("h1").inner_text()
        got = reference_solution_passes(page)
        assert got and set(got.values()) == {"ok"}, got
        assert recorder.foreign(zensical_host.url) == []
        assert recorder.console_errors == []
    finally:
        context.close()


def test_zensical_build_navigates_without_reloading_and_mounts_the_exercises(browser, zensical_site):
    """Instant navigation, with its named progress bar (overrides/partials/progress.html), even though
    this build's SITE_URL is not the address it is served at."""
    server = _serve(zensical_site)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    recorder = Recorder(context)
    try:
        page = context.new_page()
        page.goto(url)
        assert page.locator(".md-progress[role=progressbar]").get_attribute("aria-label") == "Carregando a página"
        page.evaluate("window.__samePage = true")
        page.get_by_role("link", name="Começar a Lição 2").click()
        page.wait_for_url(url + "licao-2/")
        mount_all(page)
        assert page.evaluate("window.__samePage === true"), "the click reloaded the page"
        # Opened directly, the lesson has its code notes built, and loads Zensical's script when the
        # reader reaches for the search; it starts, and leaves the notes as they are.
        lesson = context.new_page()
        lesson.goto(url + "licao-2/")
        assert lesson.evaluate("document.documentElement.classList.contains('no-js')")
        assert lesson.locator(".lesson-note-marker").count() >= 3
        load_theme(lesson)
        lesson.wait_for_timeout(500)
        assert lesson.locator(".md-annotation").count() == 0 and lesson.locator(".lesson-note-marker").count() >= 3
        assert recorder.foreign(url) == [] and recorder.console_errors == []
    finally:
        context.close()
        server.shutdown()
