"""The build's code notes and copy buttons (sitebuild/code_notes.py, code_copy.py) on the builders' HTML."""

from __future__ import annotations

from sitebuild.code_notes import render_code_notes

BLOCK = (
    '<div class="language-python highlight"><pre><span></span><code tabindex="0">'
    '<span class="n">x</span> <span class="o">=</span> <span class="mi">1</span>  <span class="c1"># (1)!</span>\n'
    '<span class="n">y</span>  <span class="c1"># (2)</span>\n</code></pre></div>\n'
    "<ol>\n<li><strong>Um.</strong> A nota <code>x</code>.</li>\n<li>Dois.</li>\n</ol>\n<p>Depois.</p>"
)


def test_markers_become_buttons_that_open_their_notes():
    html = render_code_notes(BLOCK)
    assert "(1)!" not in html and "<ol>" not in html
    assert 'class="language-python highlight lesson-annotated"' in html
    assert '<button type="button" class="lesson-note-marker" popovertarget="lesson-note-1-1" aria-label="Nota 1 do código">1</button>' in html
    # "(2)" without "!" keeps its comment sign, as in mkdocs-material.
    assert '<span class="c1">#</span> <button type="button" class="lesson-note-marker" popovertarget="lesson-note-1-2"' in html
    assert 'id="lesson-note-1-1" popover role="note"' in html and "<strong>Um.</strong> A nota <code>x</code>." in html
    assert html.index('id="lesson-note-1-2"') < html.index("<p>Depois.</p>")


def test_running_it_again_changes_nothing_and_each_block_numbers_its_own_notes():
    once = render_code_notes(BLOCK + "\n" + BLOCK)
    assert render_code_notes(once) == once
    assert 'id="lesson-note-2-1"' in once and once.count("lesson-note-marker") == 4


def test_a_list_after_a_block_without_markers_is_left_as_written():
    plain = BLOCK.replace("# (1)!", "# um").replace("# (2)", "# dois")
    assert render_code_notes(plain) == plain
    # Markers beyond the list are not annotations either.
    assert render_code_notes(BLOCK.replace("# (2)", "# (3)")) == BLOCK.replace("# (2)", "# (3)")


def test_every_highlighted_block_gets_one_copy_button_once():
    from sitebuild.code_copy import add_copy_buttons

    titled = BLOCK.replace("<pre>", '<span class="filename">a.py</span><pre>', 1)
    once = add_copy_buttons(BLOCK + titled)
    assert once.count('data-lesson-copy') == 2 and add_copy_buttons(once) == once
