"""The exercise editor's look before CodeMirror mounts: the starter code built into the page.

The widget replaces it with the live editor (widget.js); both have the same rows, line numbers,
font, padding and wrapping (the break points of src/editor.js, found here with `tokenize`), so
nothing below the editor moves when CodeMirror arrives. Its rules are in lesson.css.
"""

from __future__ import annotations

import html
import io
import re
import tokenize

# The editor's break points (src/editor.js, wrapDecorations): after an opening bracket or a comma,
# and before a `.` between names, outside strings and comments.
AFTER = set("([{,")
NAME = re.compile(r"[A-Za-z0-9_)\]]")
NAME_START = re.compile(r"[A-Za-z_]")


def _prose(text: str) -> set[tuple[int, int]]:
    """(row, column) of every character inside a string or a comment (rows from 1)."""
    inside: set[tuple[int, int]] = set()
    lines = text.split("\n")
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type not in (tokenize.STRING, tokenize.COMMENT):
                continue
            (row, col), (end_row, end_col) = token.start, token.end
            while (row, col) < (end_row, end_col):
                inside.add((row, col))
                col += 1
                if col >= len(lines[row - 1]) and row < end_row:
                    row, col = row + 1, 0
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # code that does not tokenize wraps at the browser's own places
    return inside


def _breaks(text: str, row: int, prose: set[tuple[int, int]]) -> list[int]:
    indent = len(text) - len(text.lstrip())
    found = []
    for i in range(indent, len(text) - 1):
        ch = text[i]
        dot = ch == "." and i > 0 and NAME.match(text[i - 1]) and NAME_START.match(text[i + 1])
        before = i + 1 if ch in AFTER else i if dot else -1
        if before <= indent or text[before] == " " or (row, i) in prose:
            continue
        found.append(before)
    return found


def _line_html(text: str, row: int, prose: set[tuple[int, int]]) -> str:
    if not text:
        return '<div class="cm-line"><br></div>'
    columns = len(text.expandtabs(4)) - len(text.expandtabs(4).lstrip(" "))
    indent = len(text) - len(text.lstrip())
    breaks = set(_breaks(text, row, prose))
    parts = []
    for i, ch in enumerate(text):
        if i in breaks:
            parts.append("<wbr>")
        parts.append(html.escape(ch))
    body = "".join(parts)
    if indent and indent < len(text):
        # The indentation and the first character of the code never part (src/editor.js, holdIndent).
        head = "".join(html.escape(ch) for ch in text[:indent + 1])
        body = f'<span class="cm-hold-indent">{head}</span>' + body[len(head):]
    if columns and columns < len(text):
        return f'<div class="cm-line cm-hanging" style="--hang: {columns}ch">{body}</div>'
    return f'<div class="cm-line">{body}</div>'


def placeholder_html(code: str) -> str:
    """The editor as it looks once mounted with `code` (no colours of syntax), hidden from readers
    of the page's text by aria-hidden: the code is in the lesson above it, and the live editor
    replaces it in a moment."""
    lines = code.split("\n")  # a final newline is an empty last row, as in the editor
    prose = _prose(code)
    digits = len(str(len(lines)))
    rows = "".join(f'<span class="exercise-editor__number">{n}</span>{_line_html(text, n, prose)}'
                   for n, text in enumerate(lines, start=1))
    return (f'<div class="cm-editor exercise-editor__static" aria-hidden="true" style="--digits: {digits}">'
            f'<div class="cm-scroller"><div class="exercise-editor__rows">{rows}</div></div></div>')
