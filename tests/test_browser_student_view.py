"""What a student saw on the lesson (issue 17, point 4) and the student's name in the export (issue 18),
in a real headless Chromium, at a phone's width (390 px) and a desktop's, in the light and dark palettes."""

from __future__ import annotations

import re

import json
import subprocess
import sys
import unicodedata

import pytest

from graders import exercises

from conftest import ROOT
from test_browser_a11y import assert_no_serious_violations
from test_browser_site import Recorder, load_theme
from test_browser_widget import RIGHT_DIAGNOSIS, SOLUTION, STARTER, VERDICT_TIMEOUT_MS, choose, set_code, verify, widget

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
VIEWS = [("phone", PHONE, "light"), ("phone", PHONE, "dark"), ("desktop", DESKTOP, "light"), ("desktop", DESKTOP, "dark")]


@pytest.fixture(scope="module")
def lesson(browser, site_url):
    """One lesson page (one Python worker) for the checks that need a verdict or the demo."""
    context = browser.new_context(viewport=DESKTOP, accept_downloads=True)
    context.add_init_script("globalThis.LESSON_TIME_LIMIT_MS = 4000")  # the time-limit check waits less
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    widget(page, "nivel-2").wait_for()
    yield page
    assert recorder.foreign(site_url) == [], "a request left the page's origin"
    assert recorder.console_errors == [], recorder.console_errors
    context.close()


def show(page, viewport, palette):
    # A page the browser counts as in the background gets no animation frames, and every wait below
    # (element stability, wait_for_function) runs on them: a CI run once stalled 30 s per test here.
    page.bring_to_front()
    page.set_viewport_size(viewport)
    page.emulate_media(color_scheme=palette)
    scheme = {"light": "default", "dark": "slate"}[palette]
    page.wait_for_function(f"document.body.getAttribute('data-md-color-scheme') === '{scheme}'")


TEXT_RECTS = """(root) => {
  // Every run of rendered text under root, as [text, left, top, right, bottom] per line box.
  const out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim() || !n.parentElement.checkVisibility() || n.parentElement.closest(".md-top")) continue;
    const r = document.createRange();
    r.selectNodeContents(n);
    for (const b of r.getClientRects()) if (b.width && b.height) out.push([n.textContent.trim(), b.left, b.top, b.right, b.bottom]);
  }
  return out;
}"""

BROKEN_WORDS = """(root) => {
  // Words (runs without spaces) of root's text that the layout split across two rows.
  const broken = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (const m of n.textContent.matchAll(/\\S+/g)) {
      if (m[0].length > 30) continue;  // longer than a pane is wide: may be broken, as a last resort
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].filter((b) => b.width).map((b) => Math.round(b.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  return broken;
}"""


# --- the "mate o processo" demo -------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo(lesson):
    page = lesson
    host = page.locator(".torn-demo")
    host.get_by_role("button", name="Derrubar cada versão 30 vezes").click()
    host.locator(".torn-demo__table").wait_for(timeout=VERDICT_TIMEOUT_MS)
    return page


@pytest.mark.parametrize("name,viewport,palette", VIEWS)
def test_demo_table_fits_the_screen_with_its_headers_apart(demo, name, viewport, palette):
    page = demo
    show(page, viewport, palette)
    table = page.locator(".torn-demo__table")
    table.scroll_into_view_if_needed()
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page scrolls sideways"
    box = table.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"the table runs off the screen ({name}): {box}"
    assert table.evaluate("t => t.parentElement.scrollWidth <= t.parentElement.clientWidth"), "the table is clipped in its box"
    caption = table.locator("caption").bounding_box()
    assert caption["x"] >= 0 and caption["x"] + caption["width"] <= width
    # Each header's words stand apart from the next header's: no "Processo mortoFalta de energia".
    heads = table.locator("thead th").all()
    for cell in heads + table.locator("tbody th, tbody td").all():
        pads = cell.evaluate("c => [parseFloat(getComputedStyle(c).paddingLeft), parseFloat(getComputedStyle(c).paddingRight)]")
        assert min(pads) >= 4, f"cells without padding let neighbouring words touch: {cell.inner_text()!r} {pads}"
    extents = [max((r for r in h.evaluate(TEXT_RECTS)), key=lambda r: r[3]) for h in heads]
    lefts = [min(r[1] for r in h.evaluate(TEXT_RECTS)) for h in heads]
    for i in range(len(heads) - 1):
        assert lefts[i + 1] - extents[i][3] >= 8, f"headers {i} and {i + 1} run together ({name}): {extents[i]} / {lefts[i + 1]}"
    # Every header word is whole on its line, every count on one line.
    assert table.evaluate(BROKEN_WORDS) == []
    for cell in table.locator("td").all():
        assert len({round(r[2]) for r in cell.evaluate(TEXT_RECTS)}) == 1, f"a count wraps: {cell.inner_text()}"
    assert_no_serious_violations(page, f"the demo's table ({name}, {palette})")


def test_demo_counts_say_what_they_are_out_of(demo):
    """Every count is "n de N" of the quedas it counts, the caption says which those are (the ones
    before any checkpoint included), the dump's columns are named, and the size is said once."""
    page = demo
    table = page.locator(".torn-demo__table")
    for cell in table.locator("td").all():
        assert re.fullmatch(r"\d+ de \d+", cell.inner_text().strip()), cell.inner_text()
    caption = table.locator("caption").inner_text()
    assert "das 30 quedas sorteadas" in caption and "antes de haver checkpoint" in caption and "entre duas operações" in caption
    text = page.locator(".torn-demo__result > p").inner_text()
    assert "posição no arquivo (em hexadecimal)" in text
    sizes = re.findall(r"\d+ bytes?", text.split("O fim do arquivo")[0])
    assert len(sizes) == len(set(sizes)), f"the size is said twice: {text}"


def test_code_in_the_lesson_tables_never_breaks_inside_a_name_on_a_phone(demo):
    page = demo
    show(page, PHONE, "light")
    codes = page.locator("article table:not([class]) code")
    assert codes.count() > 5
    broken = [word for code in codes.all() for word in code.evaluate(BROKEN_WORDS)]
    wide = page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    show(page, DESKTOP, "light")  # the next checks read the desktop's dump
    assert broken == [], broken
    assert wide


def test_hexdump_shows_accented_letters_decoded(demo, site_url):
    page = demo
    text = "do último trimestre, consolidá-los em uma única tabela ção"
    dump = page.evaluate(
        "async ([url, text]) => (await import(url)).hexdump([...new TextEncoder().encode(text)], 0x110)",
        [site_url + "assets/javascripts/lesson/demo.js", text])
    lines = dump.split("\n")
    assert "".join(line[55:] for line in lines) == text, dump  # each letter once, none as "··"
    assert "··" not in dump
    # A letter cut by the file's end (or by where the dump starts) is a lone "·", never a wrong letter.
    cut = page.evaluate(
        "async ([url, text]) => (await import(url)).hexdump([...new TextEncoder().encode(text)].slice(4, -2))",
        [site_url + "assets/javascripts/lesson/demo.js", "do úúú ção"])
    assert cut.split("\n")[0][55:] == "·úú ç·"
    # The demo's own dump: every letter its bytes hold is shown decoded.
    shown = page.locator(".torn-demo__bytes").inner_text().split("\n")
    data = bytes(int(h, 16) for line in shown if line[:4].strip() and line[4:6] == "  " for h in line[6:53].split())
    letters = [c for c in data.decode("utf-8", "ignore") if ord(c) > 127 and unicodedata.category(c)[0] != "C"]
    column = "".join(line[55:] for line in shown if line[4:6] == "  ")
    assert [c for c in column if ord(c) > 127 and c != "·"] == letters


@pytest.mark.parametrize("name,viewport,palette", VIEWS)
def test_hexdump_shows_its_decoded_text_without_scrolling_sideways(demo, name, viewport, palette):
    """The lesson points to the dump's decoded text: on a phone it is on screen beside its bytes, with
    no sideways scrolling (fewer bytes a row); a desktop keeps 16 bytes a row."""
    page = demo
    show(page, viewport, palette)
    dump = page.locator(".torn-demo__bytes")
    dump.scroll_into_view_if_needed()
    # A new width is laid out by the next frame (a ResizeObserver runs before it is painted).
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    sizes = dump.evaluate("p => [p.scrollWidth, p.clientWidth]")
    assert sizes[0] <= sizes[1], f"the dump scrolls sideways ({name}, {palette}): {sizes}"
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page scrolls sideways"
    box = dump.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"the dump runs off the screen ({name}): {box}"
    # Every row's end (its decoded text) is drawn inside the dump's box, on screen.
    right = dump.evaluate("p => p.getBoundingClientRect().right - parseFloat(getComputedStyle(p).paddingRight)")
    ends = [r[3] for r in dump.evaluate(TEXT_RECTS)]
    assert ends and max(ends) <= right + 0.5, f"a row's text ends at {max(ends)}, past the dump's edge {right}"
    # Still a hexdump: offset, the bytes in hex, then the same bytes as text (a phone: fewer a row).
    rows = [line for line in dump.inner_text().split("\n") if line[4:6] == "  "]
    # The demo kills at random: a short torn file fills less than one row, so the row size is the
    # dump's own record, and no row holds more bytes than it.
    per_row = int(dump.get_attribute("data-bytes-per-row"))
    assert (per_row == 16) if name == "desktop" else (4 <= per_row < 16), (name, per_row)
    assert all(len(line[6:6 + 3 * per_row - 1].split()) <= per_row for line in rows), rows
    data, column = b"", ""
    for line in rows:
        hex_part, text = line[6:6 + 3 * per_row - 1], line[6 + 3 * per_row + 1:]
        data += bytes(int(h, 16) for h in hex_part.split())
        column += text
    decoded = data.decode("utf-8", "ignore")
    assert [c for c in column if c.isalnum()] == [c for c in decoded if c.isalnum()], (column, decoded)


# --- the editor ---------------------------------------------------------------------------------

# Every character of an editor line with its box: [character, left, top (rounded), width].
LINE_CHARS = """(line) => {
  const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
  const chars = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (let i = 0; i < n.textContent.length; i += 1) {
      const r = document.createRange();
      r.setStart(n, i);
      r.setEnd(n, i + 1);
      const b = r.getClientRects()[0];
      if (b) chars.push([n.textContent[i], b.left, Math.round(b.top), b.width]);
    }
  }
  return chars;
}"""

WRAP_ROWS = """(line) => {
  // [left of the first non-space character, left of the first character of each following row].
  const chars = (%s)(line);
  const first = chars.find((c) => c[0] !== " ");
  const rows = [];
  for (let i = 1; i < chars.length; i += 1) if (chars[i][2] > chars[i - 1][2]) rows.push(chars[i][1]);
  return [first[1], rows];
}""" % LINE_CHARS


@pytest.mark.parametrize("name,viewport,palette", [VIEWS[0], VIEWS[3]])
def test_wrapped_editor_lines_continue_at_their_own_indentation(lesson, name, viewport, palette):
    page = lesson
    show(page, viewport, palette)
    words = " ".join(f"palavra{i}" for i in range(60))
    code = f"def run_agent(task, tools, call_model, execute_tool):\n    if task:\n        resumo = '{words}'\n    return resumo\n"
    set_code(page, "nivel-2", code)
    line = widget(page, "nivel-2").locator(".cm-line", has_text="palavra59")
    first, rows = line.evaluate(WRAP_ROWS)
    assert rows, "the long line did not wrap"
    for left in rows:
        assert abs(left - first) <= 2, f"a wrapped row starts at {left}, the line's code at {first} ({name})"
    # The first row is where it was: at its indentation, the same as an unwrapped line of that depth.
    shorter = widget(page, "nivel-2").locator(".cm-line", has_text="if task")
    assert first - shorter.evaluate(WRAP_ROWS)[0] > 10  # 4 columns deeper than "if task:"
    set_code(page, "nivel-2", STARTER)


ROW_BREAKS = """(line) => {
  // Each row break of a wrapped line: [character before, character after]; and whether the line's
  // first non-space character is on its first row (the row beside its number).
  const chars = (%s)(line).filter((c) => c[3] > 0).map((c) => [c[0], c[2]]);
  const breaks = [];
  for (let i = 1; i < chars.length; i += 1) if (chars[i][1] > chars[i - 1][1]) breaks.push([chars[i - 1][0], chars[i][0]]);
  const first = chars.find((c) => c[0] !== " ");
  return { breaks, firstOnFirstRow: !first || first[1] === chars[0][1] };
}""" % LINE_CHARS


@pytest.mark.parametrize("exercise_id", ["nivel-1", "nivel-2"])
def test_the_starters_wrap_on_a_phone_at_code_boundaries(lesson, exercise_id):
    """Each line starts on its numbered row (a long first token once left that row empty) and a
    wrapped row never ends inside a name or a word of a string ("checkpoint.js" / "on")."""
    page = lesson
    show(page, PHONE, "light")
    set_code(page, exercise_id, exercises.read_text(exercise_id, "starter.py"))
    lines = widget(page, exercise_id).locator(".cm-line")
    wrapped = 0
    for n in range(lines.count()):
        found = lines.nth(n).evaluate(ROW_BREAKS)
        text = lines.nth(n).inner_text()
        assert found["firstOnFirstRow"], f"line {n + 1} starts one row below its number: {text!r}"
        for before, after in found["breaks"]:
            wrapped += 1
            assert not (before.isalnum() and after.isalnum()), f"line {n + 1} wraps inside a word: {before!r}|{after!r} in {text!r}"
    assert wrapped, "nothing wrapped at a phone's width: the check saw nothing"
    page.set_viewport_size(DESKTOP)


# --- the crash timeline: its table and its disk views ----------------------------------------------

@pytest.fixture(scope="module")
def torn_verdict(lesson):
    """A verdict whose timeline has torn files (in-place writes), the first failing crash selected."""
    page = lesson
    page.set_viewport_size(DESKTOP)
    source = (ROOT / "tests" / "corpus" / "nivel-2" / "bad_only_point_a_fixed.py").read_text(encoding="utf-8")
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)  # the timeline opens once the diagnosis is answered
    set_code(page, "nivel-2", source)
    verify(page, "nivel-2")
    return page


@pytest.mark.parametrize("name,viewport,palette", VIEWS)
def test_crash_table_results_are_buttons_on_screen(torn_verdict, name, viewport, palette):
    page = torn_verdict
    show(page, viewport, palette)
    section = widget(page, "nivel-2")
    details = section.locator(".crash-timeline__table")
    if not details.evaluate("d => d.open"):
        details.locator("summary").click()
    width = page.evaluate("document.documentElement.clientWidth")
    table = details.locator("table")
    box = table.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"the table must be swiped to see it all ({name}): {box}"
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page scrolls sideways"
    assert table.locator("thead").evaluate(BROKEN_WORDS) == [], "a header is broken inside a word"
    buttons = details.locator(".crash-timeline__show")
    assert buttons.count() > 3
    for button in [buttons.first, buttons.last]:
        button.scroll_into_view_if_needed()
        page.mouse.move(0, 0)  # nothing hovered (scrolling may bring a button under the pointer)
        box = button.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"a result button is off screen ({name}): {box}"
        style = button.evaluate("b => { const s = getComputedStyle(b); return [s.cursor, s.borderTopStyle, parseFloat(s.borderTopWidth), s.backgroundColor, s.color]; }")
        assert style[0] == "pointer" and style[1] != "none" and style[2] >= 1, style
        button.hover()
        hovered = button.evaluate("b => { const s = getComputedStyle(b); return [s.backgroundColor, s.color]; }")
        assert hovered != style[3:], "hovering a result changes nothing"
    page.mouse.move(0, 0)
    assert_no_serious_violations(page, f"the crash table ({name}, {palette})")


@pytest.mark.parametrize("name,viewport,palette", VIEWS)
def test_disk_view_shows_found_and_expected_alike_side_by_side(torn_verdict, name, viewport, palette):
    page = torn_verdict
    show(page, viewport, palette)
    section = widget(page, "nivel-2")
    columns = section.locator(".crash-timeline__columns > section").all()
    found, expected = (c.locator("pre.crash-timeline__disk") for c in columns)
    # A crash that tore a long file while an earlier checkpoint was complete (what the student compares).
    for mark in section.locator(".crash-timeline__mark[data-outcome='falhou']").all():
        mark.click()
        found_text, expected_text = found.inner_text(), expected.inner_text()
        if found.get_attribute("data-torn") == "true" and len(found_text) > 400 and expected_text.startswith("{"):
            break
    else:
        pytest.fail("no torn file after a complete checkpoint in this run")
    # The same form: both are the checkpoint as indented JSON (the torn one laid out like the other).
    assert found_text.startswith("{\n  \"") and expected_text.startswith("{\n  "), (found_text[:80], expected_text[:80])
    # A line too long for the pane continues under its own first character, as in the editor.
    hang = found.locator(".crash-timeline__line", has_text="Classificar").first
    first, rows = hang.evaluate(WRAP_ROWS)
    assert rows and all(abs(left - first) <= 2 for left in rows), (first, rows)
    assert found.evaluate(BROKEN_WORDS) == [] and expected.evaluate(BROKEN_WORDS) == [], "a word is broken mid-way"
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    a, b = found.bounding_box(), expected.bounding_box()
    if name == "desktop":
        assert abs(a["y"] - b["y"]) < 2 and a["x"] + a["width"] <= b["x"], f"not side by side: {a} {b}"
        chars = found.evaluate("p => p.clientWidth / parseFloat(getComputedStyle(p).fontSize) / 0.6")
        assert chars >= 40, f"a pane holds only {chars:.0f} characters a line"
        # The torn file is read at a glance: no taller than its indented form needs.
        assert a["height"] <= 24 * 20 + 40
    else:
        assert a["width"] >= 0.85 * section.bounding_box()["width"] - 40, "on a phone each pane takes the full width"


# --- earlier results --------------------------------------------------------------------------------

def test_results_are_marked_old_the_moment_code_or_an_answer_changes(lesson):
    page = lesson
    show(page, DESKTOP, "light")
    quiz = widget(page, "quiz-sobrescrita")
    first = quiz.locator("input[type=radio]").first
    first.check()
    verify(page, "quiz-sobrescrita")
    assert quiz.get_attribute("data-stale") == "false"
    quiz.locator("input[type=radio]").nth(1).check()
    assert quiz.get_attribute("data-stale") == "true", "an answer changed, the results still look current"
    assert quiz.locator(".exercise-stale").is_visible() and "mudança" in quiz.locator(".exercise-stale").inner_text()
    first.check()  # back to the answer that was verified
    assert quiz.get_attribute("data-stale") == "false"

    section = widget(page, "nivel-2")
    set_code(page, "nivel-2", STARTER)
    verify(page, "nivel-2")
    assert section.get_attribute("data-stale") == "false"
    section.locator(".cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("# x")
    assert section.get_attribute("data-stale") == "true", "the code changed, the results still look current"
    assert section.locator(".exercise-stale").is_visible()
    for _ in range(3):
        page.keyboard.press("Control+z")
    page.wait_for_function("() => document.querySelector(\"section[data-exercise='nivel-2']\").dataset.stale === 'false'")
    # A reload shows the saved verdict; it goes old as soon as the code differs from what it judged.
    page.keyboard.type("# y")
    page.wait_for_timeout(600)  # saved after its debounce
    page.reload()
    section = widget(page, "nivel-2")
    section.wait_for()
    assert section.get_attribute("data-stale") == "true"


def test_after_the_time_limit_the_previous_timeline_is_not_shown_as_current(lesson):
    page = lesson
    show(page, DESKTOP, "light")
    section = widget(page, "nivel-2")
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == "Todas as verificações passaram."
    assert section.locator(".exercise-timeline").is_visible()
    assert section.locator(".crash-timeline__mark[data-outcome='falhou']").count() == 0  # all green
    set_code(page, "nivel-2", "while True:\n    pass\n")
    summary = verify(page, "nivel-2")
    assert "foi interrompida" in summary
    assert section.locator(".exercise-timeline").is_hidden(), "the all-green timeline stays under the time-limit message"
    assert section.get_attribute("data-stale") == "true"
    assert section.locator(".exercise-stale").is_visible()
    set_code(page, "nivel-2", STARTER)


# --- written answers ----------------------------------------------------------------------------

def export(page):
    with page.expect_download() as info:
        page.locator(".lesson-export").first.get_by_role("button", name="Exportar respostas").click()
    download = info.value
    return download.suggested_filename, json.loads(open(download.path(), encoding="utf-8").read())


def test_written_answers_of_unticked_options_are_kept_but_not_exported(lesson):
    page = lesson
    show(page, DESKTOP, "light")
    section = widget(page, "nivel-1")
    box = section.locator(".exercise-writing[data-writing='por-que-version']")
    choose(page, "nivel-1", {"campos-faltantes": "version"})
    box.locator("textarea").fill("Sem a versão, a retomada não sabe ler o formato.")
    _, doc = export(page)
    assert doc["exercises"]["nivel-1"]["texts"]["por-que-version"].startswith("Sem a versão")
    section.locator("input[name='nivel-1--campos-faltantes'][value='version']").uncheck()
    assert box.is_hidden()
    _, doc = export(page)
    assert "por-que-version" not in doc["exercises"]["nivel-1"].get("texts", {}), "a hidden answer was exported"
    record = json.loads(page.evaluate("localStorage.getItem('licao-2/exercicio/nivel-1')"))
    assert record["texts"]["por-que-version"].startswith("Sem a versão"), "the hidden answer was lost locally"
    page.reload()
    section = widget(page, "nivel-1")
    section.wait_for()
    section.locator("input[name='nivel-1--campos-faltantes'][value='version']").check()
    assert section.locator(".exercise-writing[data-writing='por-que-version'] textarea").input_value().startswith("Sem a versão")
    _, doc = export(page)
    assert doc["exercises"]["nivel-1"]["texts"]["por-que-version"].startswith("Sem a versão")


# --- the student's name (issue 18) --------------------------------------------------------------

@pytest.mark.parametrize("palette", ["light", "dark"])
def test_the_student_name_is_asked_once_kept_and_exported(browser, site_url, palette, tmp_path):
    context = browser.new_context(viewport=PHONE, accept_downloads=True, color_scheme=palette)
    page = context.new_page()
    try:
        page.goto(site_url)
        page.wait_for_selector(".lesson-export[data-mounted]")  # built disabled, filled when wired
        field = page.get_by_label("Seu nome", exact=True)
        assert field.input_value() == ""
        name, doc = export(page)
        assert name == "respostas-licao-2.json" and "student" not in doc  # optional: nothing asked first
        field.fill("  Ana Júlia Conceição-D'Ávila 2B ")
        page.reload()
        page.wait_for_selector(".lesson-export[data-mounted]")
        field = page.get_by_label("Seu nome", exact=True)
        assert field.input_value() == "  Ana Júlia Conceição-D'Ávila 2B "  # kept in this browser, editable
        page.evaluate("code => localStorage.setItem('licao-2/exercicio/nivel-2', JSON.stringify({version: 1, answers: {}, code}))",
                      STARTER)
        with page.expect_download() as info:
            page.get_by_role("button", name="Exportar respostas").click()
        name = info.value.suggested_filename
        path = tmp_path / name
        info.value.save_as(path)
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert name == "respostas-licao-2-ana-julia-conceicao-d-avila-2b.json"
        assert doc["student"] == "Ana Júlia Conceição-D'Ávila 2B"
        assert doc["format"] == "checkpoints-licao-2/respostas" and doc["version"] == 3
        assert "email" not in doc and "matricula" not in doc  # optional: nothing typed, nothing exported
        # The CLI names the student beside the file (the contract agreed with it).
        run = subprocess.run([sys.executable, "-m", "graders", "nivel-2", str(path), "--format", "json"],
                             capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert run.returncode in (0, 1), run.stderr
        assert json.loads(run.stdout)["submissions"][0]["student"] == "Ana Júlia Conceição-D'Ávila 2B"
        field.fill("x" * 130)
        _, doc = export(page)
        assert len(doc["student"]) <= 120
        # At most 120 characters as Python counts them: an emoji at the limit is kept whole, never halved.
        page.evaluate("localStorage.setItem('licao-2/aluno', ' ' + 'x'.repeat(118) + '😀😀😀')")
        page.reload()
        _, doc = export(page)
        assert len(doc["student"]) == 120 and doc["student"].endswith("x😀😀")
        page.get_by_label("Seu nome", exact=True).fill("x" * 130)
        # The lesson page's export area shows the same name.
        page.goto(site_url + "licao-2/")
        page.wait_for_selector(".lesson-export[data-mounted]")
        assert page.locator(".lesson-export__name").first.input_value().startswith("x")
        page.locator(".lesson-export__name").first.fill("")
        name, doc = export(page)
        assert name == "respostas-licao-2.json" and "student" not in doc
        # The e-mail or matrícula (export v3): kept in this browser, shared by the export areas.
        page.get_by_label("Seu e-mail ou número de matrícula").first.fill(" ana.souza@usp.br ")
        _, doc = export(page)
        assert doc["email"] == "ana.souza@usp.br" and "matricula" not in doc
        page.goto(site_url)
        page.wait_for_selector(".lesson-export[data-mounted]")
        contact = page.get_by_label("Seu e-mail ou número de matrícula")
        assert contact.input_value() == " ana.souza@usp.br "
        contact.fill("2024001")
        _, doc = export(page)
        assert doc["matricula"] == "2024001" and "email" not in doc
        page.goto(site_url)
        page.wait_for_load_state("networkidle")
        assert_no_serious_violations(page, f"the course home with the name field ({palette})")
    finally:
        context.close()


# --- page chrome ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name,viewport", [("phone", PHONE), ("desktop", DESKTOP)])
def test_back_to_top_never_covers_the_text(browser, site_url, name, viewport):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    try:
        page.goto(site_url + "licao-2/")
        page.wait_for_load_state("networkidle")
        load_theme(page)  # the pill is the theme's: its script first, or the phone's check proves nothing
        page.mouse.wheel(0, 4000)
        page.wait_for_timeout(400)
        page.mouse.wheel(0, -300)  # scrolling up is what brings the theme's pill out
        page.wait_for_timeout(600)
        top = page.locator(".md-top")
        shown = top.count() and top.evaluate("t => !t.hidden && getComputedStyle(t).display !== 'none' && getComputedStyle(t).opacity !== '0'")
        if name == "phone":
            # No margin free of text on a phone: the pill stays out.
            assert not shown, "the pill is out over the lesson's text"
            return
        assert shown, "on a wide screen the pill comes out, in the margin"
        pill = top.bounding_box()
        texts = page.locator(".md-main").evaluate(TEXT_RECTS)
        covered = [t for t in texts if t[1] < pill["x"] + pill["width"] and t[3] > pill["x"]
                   and t[2] < pill["y"] + pill["height"] and t[4] > pill["y"]]
        assert covered == [], f"the pill covers text ({name}): {covered[:3]}"
    finally:
        context.close()
