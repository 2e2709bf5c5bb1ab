"""Code annotations in their final form in the built page: numbered markers that open a note.

Authors write mkdocs-material's annotations (`# (1)!` in the code, a numbered list right after
the block). The theme's script used to turn them into markers when it arrived, so the list the
reader was reading collapsed under them; here the build does it once, with plain HTML: each
marker is a `<button popovertarget>` and each note a native `popover`, which the browser opens
on a tap, a click or Enter and closes on Esc or a tap elsewhere, with no script of ours or the
theme's. Works on either builder's HTML (pygments' comment spans); idempotent.
"""

from __future__ import annotations

import re

# A highlighted block (pymdownx.highlight: `<div class="language-x highlight">…</div>`) followed
# by the ordered list of its notes.
ANNOTATED_BLOCK = re.compile(
    r'(?P<open><div class="(?P<classes>[^"]*\bhighlight\b[^"]*)">)'
    r"(?P<code>(?:(?!</div>).)*?</code></pre>)"
    r"(?P<tail>(?:\s*</div>)+)"
    r"\s*<ol>\s*(?P<notes>(?:<li\b.*?</li>\s*)+)</ol>",
    re.S,
)
# A comment that is only the marker: `# (1)!` (the `!` drops the comment, as in the theme)
# or `# (1)` (the comment sign stays).
MARKER_COMMENT = re.compile(r'<span class="c1?">(?P<sign>#|//)\s*\((?P<n>\d+)\)(?P<bang>!?)</span>')
NOTE = re.compile(r"<li\b[^>]*>(?P<body>.*?)</li>", re.S)
ANNOTATED_CLASS = "lesson-annotated"


def _marker(block: int, n: str) -> str:
    return (
        f'<button type="button" class="lesson-note-marker" popovertarget="lesson-note-{block}-{n}"'
        f' aria-label="Nota {n} do código">{n}</button>'
    )


def _note(block: int, n: int, body: str) -> str:
    return (
        f'<div class="lesson-note" id="lesson-note-{block}-{n}" popover role="note"'
        f' aria-label="Nota {n} do código"><span class="lesson-note-number" aria-hidden="true">{n}</span>'
        f'<div class="lesson-note-body">{body.strip()}</div></div>'
    )


def render_code_notes(html: str) -> str:
    """`html` with every annotated code block's markers and notes in their final form."""
    count = 0

    def annotate(match: re.Match) -> str:
        nonlocal count
        notes = [m.group("body") for m in NOTE.finditer(match.group("notes"))]
        numbers = {int(m.group("n")) for m in MARKER_COMMENT.finditer(match.group("code"))}
        # Not annotations (a list that merely follows a block): leave both as written.
        if not numbers or not numbers <= set(range(1, len(notes) + 1)):
            return match.group(0)
        count += 1
        block = count

        def marker(m: re.Match) -> str:
            kept = "" if m.group("bang") else f'<span class="c1">{m.group("sign")}</span> '
            return kept + _marker(block, m.group("n"))

        code = MARKER_COMMENT.sub(marker, match.group("code"))
        classes = match.group("classes") + " " + ANNOTATED_CLASS
        popovers = "".join(_note(block, n, notes[n - 1]) for n in sorted(numbers))
        return f'<div class="{classes}">{code}{match.group("tail")}\n{popovers}'

    return ANNOTATED_BLOCK.sub(annotate, html)
