"""The built site in a real headless Chromium: it renders, the palette toggles, nothing leaves the origin."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.browser

THEME_LOADED = "document.documentElement.classList.contains('js')"


def load_theme(page):
    """Has the theme's script run on the page now. On the lesson it comes only when the reader
    reaches for the search (sitebuild/theme_on_demand.js): a pointer on its entry loads it."""
    page.locator(".md-search__form, .md-search__button, label[for='__search'].md-header__button").filter(visible=True).first.hover()
    page.wait_for_function(THEME_LOADED, timeout=60_000)


class Recorder:
    """Every request a browser context makes, and the console errors of its pages."""

    def __init__(self, context):
        self.requests: list[str] = []
        # What the page itself asked for; the service worker's precache of the site is apart.
        self.page_requests: list[str] = []
        self.failed: list[str] = []
        self.console_errors: list[str] = []
        context.on("request", self.record)
        context.on("requestfailed", lambda r: self.failed.append(f"{r.url} ({r.failure})"))
        context.on("response", lambda r: r.status >= 400 and self.failed.append(f"{r.url} -> {r.status}"))
        context.on("page", self.watch)

    def record(self, request):
        self.requests.append(request.url)
        if request.service_worker is None:
            self.page_requests.append(request.url)

    def watch(self, page):
        page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        page.on("pageerror", lambda e: self.console_errors.append(str(e)))

    def foreign(self, origin: str) -> list[str]:
        return [u for u in self.requests if urlsplit(u).scheme in {"http", "https", "ws", "wss"} and not u.startswith(origin)]


@pytest.fixture
def session(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    recorder = Recorder(context)
    page = context.new_page()
    yield page, recorder
    context.close()


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/"


def test_lesson_renders_with_no_foreign_request(session, site_url):
    page, rec = session
    page.goto(site_url + "licao-2/")
    page.wait_for_load_state("networkidle")
    heading = page.locator("h1")
    assert "Checkpoints" in heading.inner_text()
    assert page.locator(".md-content h2").count() >= 9
    # The theme really styled the page (its CSS came from this origin).
    header_bg = page.locator(".md-header").evaluate("e => getComputedStyle(e).backgroundColor")
    assert header_bg not in ("", "rgba(0, 0, 0, 0)")
    assert page.locator("section.exercise").count() == 3
    assert rec.requests, "no request was recorded"
    assert rec.foreign(site_url) == []
    assert rec.failed == []
    assert rec.console_errors == []


def test_palette_toggle_switches_light_and_dark(session, site_url):
    page, rec = session
    page.emulate_media(color_scheme="light")
    page.goto(site_url + "licao-2/")
    body = page.locator("body")
    seen = [body.get_attribute("data-md-color-scheme")]
    names = []
    for _ in range(3):
        toggle = page.locator("form[data-md-component=palette] label:visible").first
        names.append(toggle.get_attribute("title"))
        toggle.click()
        seen.append(body.get_attribute("data-md-color-scheme"))
    assert "slate" in seen and "default" in seen, seen
    assert all(names) and len(set(names)) == 3, names
    # The choice is remembered across pages.
    before = body.get_attribute("data-md-color-scheme")
    page.goto(site_url)
    assert page.locator("body").get_attribute("data-md-color-scheme") == before
    assert rec.foreign(site_url) == []
    assert rec.console_errors == []


def test_vendored_pyodide_boots_offline_in_a_module_worker(session, site_url):
    page, rec = session
    page.goto(site_url + "licao-2/")
    version = page.evaluate(
        """async (base) => {
            const src = `
              import { loadPyodide } from "${base}pyodide/pyodide.mjs";
              const py = await loadPyodide({ indexURL: "${base}pyodide/" });
              postMessage(py.runPython("import json, os, sys; json.dumps([sys.version_info[0], os.name])"));
            `;
            const url = URL.createObjectURL(new Blob([src], { type: "text/javascript" }));
            const worker = new Worker(url, { type: "module" });
            try {
              return await new Promise((resolve, reject) => {
                worker.onmessage = (e) => resolve(e.data);
                worker.onerror = (e) => reject(new Error(e.message || "worker error"));
                setTimeout(() => reject(new Error("Pyodide did not start in 60 s")), 60000);
              });
            } finally {
              worker.terminate();
            }
        }""",
        site_url,
    )
    assert version == '[3, "posix"]'
    assert any(u.endswith("/pyodide/pyodide.asm.wasm") for u in rec.requests)
    assert rec.foreign(site_url) == []
    assert rec.failed == []


def test_site_works_under_a_sub_path(session, subpath_site_url):
    page, rec = session
    page.goto(subpath_site_url + "licao-2/")
    page.wait_for_load_state("networkidle")
    assert "Checkpoints" in page.locator("h1").inner_text()
    # Python, the worker and the graders are found relative to the page, not the domain root.
    page.locator("section.exercise[data-exercise='quiz-sobrescrita']").scroll_into_view_if_needed()
    quiz = page.locator("section.exercise[data-exercise='quiz-sobrescrita'][data-mounted]")
    quiz.locator("input[value='meio-documento']").check()
    quiz.get_by_role("button", name="Verificar").click()
    page.wait_for_function(
        "document.querySelector(\"section[data-exercise='quiz-sobrescrita'] .exercise-summary\").textContent.length > 0",
        timeout=60_000,
    )
    assert quiz.locator(".exercise-summary").inner_text() == "A verificação passou."
    page.get_by_role("link", name="Início", exact=True).first.click()
    page.wait_for_load_state("networkidle")
    assert page.url.rstrip("/") == subpath_site_url.rstrip("/")
    assert all("/cursos/checkpoints/" in u for u in rec.requests if u.startswith(origin_of(subpath_site_url)))
    assert rec.failed == []
    assert rec.foreign(origin_of(subpath_site_url)) == []


def test_course_home_stays_light(session, site_url):
    page, rec = session
    page.goto(site_url)
    page.wait_for_load_state("networkidle")
    assert page.locator(".course-progress li").count() == 3
    heavy = [u for u in rec.page_requests if "codemirror" in u or "widget.js" in u or "/pyodide/" in u]
    assert heavy == [], "the home page has no exercise: no editor, no Python"
    # The service worker keeps the site's own files for offline visits, but never Python's 13 MB.
    assert not [u for u in rec.requests if "/pyodide/" in u]
    assert rec.console_errors == []


@pytest.mark.parametrize("query", ["replace", "rename", "os.replace", "os.fsync", "json.dump", "fsync", "pendingToolUse",
                                   "gravação", "retomada"])
def test_search_finds_the_lessons_code_words(session, site_url, query):
    """A student searches for a call or a field by the name they remember, with or without `os.`."""
    page, recorder = session
    page.goto(site_url + "licao-2/")
    load_theme(page)
    page.locator("input.md-search__input").click()
    page.locator("input.md-search__input").press_sequentially(query)  # typed: the theme searches as keys come
    results = page.locator(".md-search-result__item")
    results.first.wait_for(timeout=30_000)
    assert "Nenhum documento" not in page.locator(".md-search-result__meta").inner_text()
    # No word of a code name struck out as missing (the stop-word list has the article "os"), and
    # the best section has the whole name, not a heading with the article.
    if "." in query:
        module = query.split(".")[0]
        best = results.first.locator("article:has(h2)").first

        def struck():
            return [t for t in results.locator(".md-search-result__terms del").all_inner_texts()
                    if t.rstrip(".") == module]

        # The list first shows the results of what was typed so far ("os.re" finds "re…" words
        # without "os."): the final query's results replace it when the worker answers.
        deadline = time.monotonic() + 15
        while (struck() or best.locator(".md-search-result__terms").count()) and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        assert not struck(), results.locator(".md-search-result__terms del").all_inner_texts()
        # The best section (the first article is the page) has every word of the name (its text
        # is cut short in the result, so the name may not show).
        assert best.locator(".md-search-result__terms").count() == 0, best.text_content()
    assert recorder.console_errors == []
