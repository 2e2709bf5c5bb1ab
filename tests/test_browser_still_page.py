"""A page that holds still on a phone: the code annotations and the header are built in their final
form (sitebuild/code_notes.py, lesson.css), so nothing the reader sees moves when the theme's script
arrives; each note opens from its marker with no script (a native popover), by touch or keyboard;
the exercise editor is built in its mounted look (sitebuild/editor_placeholder.py), so nothing moves
when CodeMirror (loaded in pieces) replaces it."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT
from test_browser_a11y import assert_no_serious_violations
from test_browser_site import THEME_LOADED, Recorder, load_theme

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 3}
HEADER_PARTS = (".md-header__title", "label[for='__search']", ".md-header__option")
# Where the reader's eyes are: the first annotated block, its markers and the paragraph after its notes.
LAYOUT = """() => {
  const block = document.querySelector('.lesson-annotated');
  let after = block.nextElementSibling;
  while (after && after.matches('.lesson-note')) after = after.nextElementSibling;
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top + scrollY, r.right, r.bottom + scrollY]; };
  return {
    after: box(after), afterTag: after.tagName,
    markers: [...document.querySelectorAll('.lesson-note-marker')].map(box),
    header: %s.map(s => { const el = document.querySelector(s); return el && [box(el), el.innerText]; }),
    rawMarkers: [...document.querySelectorAll('pre code')].filter(c => /#\\s*\\(\\d+\\)!/.test(c.textContent)).length,
    themeMarkers: document.querySelectorAll('.md-annotation').length,
  };
}""" % list(HEADER_PARTS)


@pytest.fixture
def phone(browser):
    context = browser.new_context(**PHONE, color_scheme="dark")
    recorder = Recorder(context)
    page = context.new_page()
    yield page, recorder
    assert recorder.console_errors == []
    context.close()


def test_the_theme_arriving_moves_nothing_and_every_marker_is_on_the_screen(phone, site_url):
    page, _ = phone
    page.goto(site_url + "licao-2/")
    assert page.evaluate("document.documentElement.classList.contains('no-js')")
    page.evaluate("document.querySelector('.lesson-annotated').scrollIntoView()")
    before = page.evaluate(LAYOUT)
    assert before["afterTag"] == "P" and before["rawMarkers"] == 0
    assert len(before["markers"]) >= 8
    for left, _, right, _ in before["markers"]:
        assert 0 <= left and right <= 390, before["markers"]
    assert all(part is not None for part in before["header"]), before["header"]
    assert before["header"][1][0][2] > before["header"][1][0][0], "the search entry is not shown before the theme"

    load_theme(page)
    page.wait_for_timeout(800)  # what the theme measures and moves, it does in the next frames
    after = page.evaluate(LAYOUT)
    assert after["themeMarkers"] == 0, "the theme's script transformed the annotations again"
    assert after["after"] == before["after"], ("the paragraph below the annotated block moved", before, after)
    assert after["markers"] == before["markers"]
    assert after["header"] == before["header"], "the header changed when the theme's script arrived"


def test_a_note_opens_from_its_marker_by_touch_and_by_keyboard_without_any_script(browser, site_url):
    context = browser.new_context(**PHONE, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(site_url + "licao-2/")
        marker = page.get_by_role("button", name="Nota 1 do código").first
        marker.tap()
        note = page.locator(".lesson-note:popover-open")
        assert note.count() == 1 and "Ponto de gravação A" in note.inner_text()
        box = note.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["y"] >= 0 and box["y"] + box["height"] <= 844
        page.keyboard.press("Escape")
        assert page.locator(".lesson-note:popover-open").count() == 0
        marker.focus()
        page.keyboard.press("Enter")
        assert "Ponto de gravação A" in page.locator(".lesson-note:popover-open").inner_text()
        assert marker.get_attribute("aria-expanded") in (None, "true")  # Chromium exposes it from popovertarget
        page.keyboard.press("Escape")
        assert page.locator(".lesson-note:popover-open").count() == 0
    finally:
        context.close()


def test_the_lesson_on_a_phone_with_a_note_open_has_no_serious_wcag_violations(phone, site_url):
    page, _ = phone
    page.goto(site_url + "licao-2/")
    assert_no_serious_violations(page, "a lição a 390 px, antes do script do tema")
    page.get_by_role("button", name="Nota 2 do código").first.click()
    assert_no_serious_violations(page, "a lição a 390 px, com uma nota aberta")
    load_theme(page)
    assert page.evaluate(THEME_LOADED)
    assert_no_serious_violations(page, "a lição a 390 px, depois do script do tema")


def test_a_code_blocks_copy_button_copies_its_code_without_the_note_markers(browser, site_url):
    context = browser.new_context(**PHONE)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    try:
        page = context.new_page()
        page.goto(site_url + "licao-2/")
        assert page.locator("div.highlight > pre > nav .md-code__button").count() >= 3  # in the built page
        page.locator(".lesson-annotated").first.get_by_role("button", name="Copiar o código").click()
        page.wait_for_function("document.querySelector('.lesson-visually-hidden[role=status]')?.textContent.includes('copiado')")
        copied = page.evaluate("navigator.clipboard.readText()")
        assert '    state["pendingToolUse"] = {\n        "id": block["id"],' in copied
        # Where the markers (2) and (3) stood, the line ends with the code.
        assert '    state["pendingToolUse"] = None\n' in copied and '.get("output_tokens") or 0\n' in copied
        assert not page.evaluate(THEME_LOADED)
    finally:
        context.close()


# Each exercise's rows (from the editor's top) and the place of what follows its editor (from the
# section's top: a demo table above may still be mounting), and whether the live editor is there.
EDITOR_LAYOUT = """() => [...document.querySelectorAll('section.exercise')].filter(s => s.querySelector('.exercise-editor')).map(s => {
  const top = s.getBoundingClientRect().top;
  const y = (el) => el.getBoundingClientRect().top - top;
  const host = s.querySelector('.exercise-editor');
  const inHost = (el) => el.getBoundingClientRect().top - host.getBoundingClientRect().top;
  return {
    id: s.dataset.exercise, live: !!host.querySelector('.cm-content'), height: s.getBoundingClientRect().height,
    rows: [...host.querySelectorAll('.cm-line')].map(l => [Math.round(inHost(l)), Math.round(l.getBoundingClientRect().height)]),
    numbers: [...host.querySelectorAll('.cm-lineNumbers .cm-gutterElement, .exercise-editor__number')]
      .filter(n => /^\\d+$/.test(n.textContent) && n.style.visibility !== 'hidden').map(n => n.textContent),
    help: y(s.querySelector('.exercise-editor__help')), criteria: y(s.querySelector('.exercise-criteria__title')),
  };
})"""


@pytest.mark.parametrize("width", [390, 1280])
def test_the_editor_built_into_the_page_is_where_and_as_tall_as_the_live_one(browser, site_url, width):
    """Before the widget (held back here), the page shows the editor built at build time, its toolbar
    and its help; once the widget mounts, CodeMirror takes its place and nothing below moves."""
    layouts = []
    for hold in (True, False):
        context = browser.new_context(viewport={"width": width, "height": 844}, color_scheme="dark")
        recorder = Recorder(context)
        page = context.new_page()
        if hold:
            page.route("**/lesson/widget.js", lambda route: None)  # never answered: the page as built
        page.goto(site_url + "licao-2/")
        sections = page.locator("section.exercise:has(.exercise-editor)")
        for index in range(sections.count()):
            sections.nth(index).scroll_into_view_if_needed()
            if not hold:
                page.wait_for_selector(f"section.exercise:has(.exercise-editor) >> nth={index} >> .cm-content")
        if not hold:
            page.wait_for_function("[...document.querySelectorAll('section.exercise:has(.exercise-editor)')]"
                                   ".every(s => s.dataset.mounted)")
            assert recorder.console_errors == []
            # The editor came in pieces (lesson/editor-loader.js), every one of them loaded.
            pieces = {p.name for p in (ROOT / "docs" / "assets" / "javascripts" / "vendor" / "codemirror").iterdir()}
            loaded = {u.rsplit("/", 1)[-1] for u in recorder.page_requests if "/vendor/codemirror/" in u}
            assert loaded == pieces and len(pieces) > 5
        page.evaluate("document.fonts.ready")
        layouts.append(page.evaluate(EDITOR_LAYOUT))
        context.close()
    built, live = layouts
    assert [e["live"] for e in built] == [False, False] and [e["live"] for e in live] == [True, True]
    for before, after in zip(built, live):
        # The live editor draws only the rows near its visible part.
        assert len(before["rows"]) >= len(after["rows"]) > 5, (before, after)
        # The live editor may scroll (Nível 2 is taller than its box): compare the rows both show.
        for (y0, h0), (y1, h1) in zip(before["rows"], after["rows"]):
            if y1 < 480:
                assert abs(y0 - y1) <= 1 and h0 == h1, (before["id"], before["rows"], after["rows"])
        assert before["numbers"][:6] == after["numbers"][:6] == ["1", "2", "3", "4", "5", "6"]
        for key in ("help", "criteria", "height"):
            assert abs(before[key] - after[key]) <= 1, (before["id"], key, before[key], after[key])


# From the first script that can run (DOMContentLoaded) until the lesson's scripts have mounted
# everything: every block of the lesson, each frame, with its height; what changed, and when.
WATCH_BLOCKS = """() => document.addEventListener('DOMContentLoaded', () => {
  const blocks = [...document.querySelectorAll('article.md-content__inner > *')];
  const name = (el) => el.tagName + (el.className ? '.' + el.className.split(' ')[0] : '') + (el.id ? '#' + el.id : '');
  let last = blocks.map((el) => el.getBoundingClientRect().height);
  window.__blockChanges = [];
  const tick = () => {
    const now = blocks.map((el) => el.getBoundingClientRect().height);
    now.forEach((h, i) => { if (Math.abs(h - last[i]) > 0.5) window.__blockChanges.push([name(blocks[i]), last[i], h]); });
    last = now;
    if (!window.__stopWatching) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})"""
MOUNTED = """() => document.querySelector('.lesson-export[data-mounted]') && document.querySelector('.torn-demo[data-mounted]')
  && !document.querySelector('section.exercise:not([data-mounted])')"""


@pytest.mark.parametrize("width", [390, 1280])
def test_no_block_of_the_lesson_changes_height_when_its_scripts_mount(browser, site_url, width):
    """The export area, the demo's controls and the editors are built into the page: the lesson's
    scripts only wire them, so no block of the lesson grows or shrinks under the reader."""
    context = browser.new_context(viewport={"width": width, "height": 844})
    try:
        page = context.new_page()
        page.add_init_script(f"({WATCH_BLOCKS})()")
        page.goto(site_url + "licao-2/")
        # Exercises mount as they near the screen: the reader goes through the whole lesson.
        for section in page.locator("section.exercise").all():
            section.scroll_into_view_if_needed()
            page.wait_for_timeout(300)
        page.wait_for_function(MOUNTED, timeout=30000)
        page.wait_for_function("document.querySelectorAll('section.exercise .cm-content').length >= 2", timeout=30000)
        page.wait_for_timeout(500)
        changes = page.evaluate("window.__stopWatching = true, window.__blockChanges")
        assert changes == [], changes
        # The built controls are the live ones.
        assert page.locator(".torn-demo__controls button").count() == 1
        assert page.locator(".lesson-export[data-mounted] input.lesson-export__name").count() >= 1
    finally:
        context.close()



TABS = """() => {
  const set = document.querySelector('.tabbed-set');
  const labels = [...set.querySelectorAll('.tabbed-labels > label')];
  const blocks = [...set.querySelectorAll('.tabbed-content > .tabbed-block')];
  return {shown: blocks.map(b => getComputedStyle(b).display !== 'none'),
          colours: labels.map(l => getComputedStyle(l).color)};
}"""


def test_the_tabs_switch_and_mark_the_chosen_label_with_the_narrowed_theme_selectors(phone, site_url):
    """The theme's tab rules name the label and the block they style (sitebuild/theme_selectors.py):
    the chosen tab's block, and only it, shows, and its label is marked, with no script of the theme."""
    page, _ = phone
    page.goto(site_url + "licao-2/")
    first = page.evaluate(TABS)
    assert first["shown"] == [True, False] and first["colours"][0] != first["colours"][1], first
    page.locator(".tabbed-labels > label").nth(1).click()
    second = page.evaluate(TABS)
    assert second["shown"] == [False, True], second
    # The label's colour eases over (the theme's transition): its end is the other's colour (away
    # from the pointer, which colours the label under it).
    page.mouse.move(0, 0)
    page.wait_for_function(f"() => JSON.stringify(({TABS})().colours) === {json.dumps(json.dumps(first['colours'][::-1], separators=(',', ':')))}",
                           timeout=5000)
    assert not page.evaluate(THEME_LOADED)
