"""The theme's script on the lesson page, in a real headless Chromium: it waits for the reader's
first gesture (sitebuild/theme_on_demand.js) and for Python's start, the first paint already has the
palette the theme will choose (palette_first_paint.js), and nothing the theme does is lost to the wait:
its controls, its keyboard shortcuts, instant navigation, what the lesson's scripts add to it."""

from __future__ import annotations

import pytest

from test_browser_loading import RUNTIME, poll
from test_browser_site import THEME_LOADED, Recorder
from test_browser_widget import RIGHT_DIAGNOSIS, SOLUTION, choose, set_code, verify, widget

pytestmark = pytest.mark.browser

ALL_PASS = "Todas as verificações passaram."
PYTHON_STATE = f"() => {RUNTIME}.then(r => r.state)"
# The page's clock at each state runtime.js writes into `__lessonPython` (what the theme's loader
# reads), and when the theme's script was requested (resource timing), for the ordering checks.
WATCH_PYTHON = """
window.__pythonStates = {};
window.__pythonLog = [];
Object.defineProperty(window, "__lessonPython", {
  configurable: true,
  get() { return this.__watchedPython; },
  set(early) {
    let state;
    Object.defineProperty(early, "state", {
      enumerable: true,
      get: () => state,
      set: (value) => {
        state = value;
        window.__pythonStates[value] ??= performance.now();
        window.__pythonLog.push([value, performance.now()]);
      },
    });
    this.__watchedPython = early;
  },
});
"""
THEME_REQUESTED = "performance.getEntriesByType('resource').find(r => r.name.includes('/javascripts/bundle.'))?.startTime ?? null"


def theme_requests(recorder) -> list[str]:
    return [u for u in recorder.page_requests if "/assets/javascripts/bundle." in u]


@pytest.fixture
def fresh(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(WATCH_PYTHON)
    recorder = Recorder(context)
    page = context.new_page()
    yield page, recorder
    assert recorder.console_errors == []
    context.close()


def test_without_a_gesture_the_theme_never_loads_and_the_page_still_works(fresh, site_url):
    page, rec = fresh
    page.goto(site_url + "licao-2/")
    poll(page, PYTHON_STATE, "ready")  # Python started by itself, with no theme
    page.wait_for_timeout(1500)
    assert theme_requests(rec) == []
    assert page.evaluate("document.documentElement.classList.contains('no-js')")
    # The lesson's own scripts did not wait for it: the export button is there.
    assert page.locator(".lesson-export button").count() > 0
    # A gesture brings the theme, once, and what it builds (annotation markers, copy buttons).
    page.mouse.wheel(0, 400)
    page.wait_for_function(THEME_LOADED)
    page.wait_for_function("document.querySelectorAll('.md-annotation').length >= 3")
    page.wait_for_function("document.querySelector('.md-code__button') !== null")
    # a11y.js names what the theme built, once it has built it.
    page.wait_for_function("document.querySelector('.md-search[role=dialog]')?.hasAttribute('aria-label')")
    page.wait_for_function("[...document.querySelectorAll('a.md-annotation__index')].every(a => a.hasAttribute('aria-label'))")
    page.mouse.wheel(0, 400)
    page.keyboard.press("Tab")
    page.wait_for_timeout(300)
    assert len(theme_requests(rec)) == 1


def test_a_gesture_while_python_starts_lets_python_finish_first(fresh, site_url):
    page, rec = fresh
    page.goto(site_url + "licao-2/", wait_until="commit")
    page.wait_for_function("document.querySelector('.md-content') !== null")
    page.mouse.move(400, 400)  # at once, while Python boots
    page.mouse.wheel(0, 300)
    gesture = page.evaluate("performance.now()")
    page.wait_for_function(THEME_LOADED, timeout=60_000)
    requested = page.evaluate(THEME_REQUESTED)
    ready = page.evaluate("window.__pythonStates.ready ?? null")
    assert requested is not None
    if ready is not None and ready < gesture + 10_000:
        assert requested >= ready, f"theme requested at {requested:.0f} ms, Python ready at {ready:.0f} ms"
    else:  # a very slow machine: the theme waits 10 s at most
        assert requested >= gesture + 9_000
    assert len(theme_requests(rec)) == 1


def test_a_check_asked_while_python_starts_runs_before_the_theme_loads(fresh, site_url):
    page, rec = fresh
    page.goto(site_url + "licao-2/")
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)  # gestures, and a check asked at once
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    page.wait_for_function(THEME_LOADED, timeout=60_000)
    log = page.evaluate("window.__pythonLog")
    requested = page.evaluate(THEME_REQUESTED)
    states = [state for state, _ in log]
    assert "busy" in states, log
    checked = next(t for state, t in log[states.index("busy"):] if state == "ready")  # the check's end
    if checked < log[0][1] + 10_000:
        assert requested >= checked, f"theme requested at {requested:.0f} ms, check done at {checked:.0f} ms ({log})"
    assert len(theme_requests(rec)) == 1


def test_a_shortcut_key_as_the_first_gesture_opens_the_search(fresh, site_url):
    page, _ = fresh
    page.goto(site_url + "licao-2/")
    page.keyboard.press("/")
    page.wait_for_function(THEME_LOADED)
    page.wait_for_function("document.activeElement?.matches('.md-search__input')")
    assert page.locator("#__search").is_checked()
    page.keyboard.type("fsync")
    page.locator(".md-search-result__item").first.wait_for()


def test_the_first_click_on_the_palette_toggle_counts(fresh, site_url):
    page, _ = fresh
    page.emulate_media(color_scheme="light")
    page.goto(site_url + "licao-2/")
    body = page.locator("body")
    assert body.get_attribute("data-md-color-scheme") == "default"
    page.locator("form[data-md-component=palette] label:visible").click()  # "automatic" -> light
    page.wait_for_function(THEME_LOADED)
    page.locator("form[data-md-component=palette] label:visible").click()  # light -> dark
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    assert page.evaluate("JSON.parse(localStorage.getItem(__md_scope.pathname + '.__palette') ?? 'null')?.index") == 2


def test_the_palette_toggle_works_before_the_theme_and_the_theme_keeps_the_choice(fresh, site_url):
    page, rec = fresh
    page.emulate_media(color_scheme="light")
    page.route("**/javascripts/bundle.*.min.js", lambda route: route.abort())  # the theme never comes
    page.goto(site_url + "licao-2/")
    scheme = "document.body.getAttribute('data-md-color-scheme')"
    seen, titles = [], []
    for _ in range(3):
        toggle = page.locator("form[data-md-component=palette] label:visible")
        titles.append(toggle.get_attribute("title"))
        toggle.click()
        seen.append(page.evaluate(scheme))
    assert seen == ["default", "slate", "default"], seen  # light, dark, automatic (light system)
    assert len(set(titles)) == 3, titles
    page.locator("form[data-md-component=palette] label:visible").click()  # light again
    page.emulate_media(color_scheme="dark")
    page.unroute("**/javascripts/bundle.*.min.js")
    page.reload()
    assert page.evaluate(scheme) == "default"  # the stored choice, not the system's dark
    page.mouse.wheel(0, 200)
    page.wait_for_function(THEME_LOADED, timeout=60_000)
    page.wait_for_timeout(300)
    assert page.evaluate(scheme) == "default"
    assert page.locator("form[data-md-component=palette] label:visible").get_attribute("for") == "__palette_2"
    rec.console_errors.clear()  # the blocked downloads


@pytest.mark.parametrize("scheme, expected", [("dark", "slate"), ("light", "default")])
def test_a_first_visit_paints_with_the_palette_the_theme_will_choose(browser, site_url, scheme, expected):
    context = browser.new_context(viewport={"width": 390, "height": 800}, color_scheme=scheme)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    colours = "['scheme', 'primary', 'accent'].map(k => document.body.getAttribute('data-md-color-' + k))"
    before = page.evaluate(colours)
    assert before == [expected, "teal", "amber"], before  # not the builder's default (indigo)
    toggle = page.locator("form[data-md-component=palette] label:visible")
    assert toggle.count() == 1 and toggle.get_attribute("for") == "__palette_1"
    assert not page.evaluate(THEME_LOADED)
    page.mouse.wheel(0, 200)
    page.wait_for_function(THEME_LOADED, timeout=60_000)
    page.wait_for_timeout(300)
    assert page.evaluate(colours) == before  # the theme, once it runs, agrees
    context.close()


def test_instant_navigation_once_the_theme_has_loaded_on_the_lesson(fresh, site_url):
    page, rec = fresh
    page.goto(site_url + "licao-2/")
    page.mouse.wheel(0, 200)
    page.wait_for_function(THEME_LOADED, timeout=60_000)
    page.evaluate("window.__sameDocument = true")
    page.get_by_role("link", name="Início", exact=True).first.click()
    page.wait_for_url(lambda url: url.split("#")[0] == site_url)
    page.get_by_role("link", name="Começar a Lição 2").click()
    page.wait_for_url(lambda url: url.split("#")[0] == site_url + "licao-2/")
    assert page.evaluate("window.__sameDocument") is True, "navigation was not instant"
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    assert len(theme_requests(rec)) == 1  # the page brought in again did not load it twice


@pytest.mark.parametrize("theme", ["before", "after"])
@pytest.mark.parametrize("region", ["pre > code", ".tabbed-labels"])
def test_what_scrolls_sideways_takes_the_keyboard_before_and_after_the_theme(browser, site_url, region, theme):
    """The build makes each region focusable; the theme's script, which removes the attribute from a
    region that does not overflow when it looks, never leaves one without it (a11y.js)."""
    context = browser.new_context(viewport={"width": 390, "height": 800})
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    page.wait_for_load_state("load")
    if theme == "after":
        page.locator(".md-header").hover()
        page.wait_for_function(THEME_LOADED, timeout=60_000)
        # The theme looks again at a new size and drops the attribute where nothing overflows.
        page.set_viewport_size({"width": 1280, "height": 800})
        page.wait_for_timeout(500)
        narrow = page.evaluate(f"[...document.querySelectorAll('{region}')].filter(c => c.scrollWidth <= c.clientWidth)"
                               ".map(c => c.tabIndex === 0)")
        assert narrow and all(narrow), narrow
        page.set_viewport_size({"width": 390, "height": 800})
        page.wait_for_timeout(500)
    else:
        assert page.evaluate(THEME_LOADED) is False
    wide = page.evaluate(f"[...document.querySelectorAll('{region}')].map(c => c.scrollWidth > c.clientWidth)")
    focusable = page.evaluate(f"[...document.querySelectorAll('{region}')].map(c => c.tabIndex === 0)")
    assert any(wide) and all(focusable), (wide, focusable)
    target = page.locator(f"{region}[tabindex]").first
    target.evaluate("c => c.focus({focusVisible: true})")
    assert float(target.evaluate("c => parseFloat(getComputedStyle(c).outlineWidth)")) >= 2
    context.close()


def test_a_click_on_a_link_of_the_header_loads_nothing_before_leaving(fresh, site_url):
    page, rec = fresh
    page.goto(site_url + "licao-2/")
    page.wait_for_load_state("networkidle")
    page.get_by_role("link", name="Início", exact=True).first.click()
    page.wait_for_url(lambda url: url.split("#")[0] == site_url)
    page.wait_for_load_state("networkidle")
    # The lesson did not start the theme's download only to abort it (Python's, cut short, may be).
    assert [f for f in rec.failed if "/javascripts/bundle." in f] == []
