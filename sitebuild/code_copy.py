"""A copy button on every highlighted code block, in the built page (no theme script needed).

mkdocs-material adds its copy buttons when its script runs, which on the lesson is only when the
reader searches; the build puts the same control (the theme's look, `md-code__button`) in place
from the first paint, and docs/assets/javascripts/lesson/copy.js copies the code's text. Idempotent.
"""

from __future__ import annotations

import re

# A highlighted block (with its file name when it has one): the button goes after its code, inside
# <pre> (the theme's place for it), leaving `<pre><span></span><code` as the other steps read it.
CODE_BLOCK = re.compile(
    r'(<div class="language-[^"]*\bhighlight\b[^"]*">(?:(?!</pre>).)*?</code>)(?!<nav class="md-code__nav")(?=</pre>)',
    re.S,
)
COPY_BUTTON = (
    '<nav class="md-code__nav"><button type="button" class="md-code__button" data-md-type="copy"'
    ' data-lesson-copy title="Copiar o código" aria-label="Copiar o código"></button></nav>'
)


def add_copy_buttons(html: str) -> str:
    return CODE_BLOCK.sub(lambda m: m.group(1) + COPY_BUTTON, html)
