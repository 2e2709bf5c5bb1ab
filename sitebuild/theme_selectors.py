"""The theme's tab selectors narrowed to the elements they style, so a browser tries them on a few.

mkdocs-material styles the tabs of `pymdownx.tabbed` (alternate style) with ~140 selectors such as
`.tabbed-set>input:nth-child(3):checked~.tabbed-labels>:nth-child(3)`: the right end of each is a
bare `:nth-child(n)`, so Chromium files it with the rules it tries on every element, and restyling
the lesson after its first paint tried each one on all ~2,200 elements (a Chromium trace's selector
statistics on a 4× slowed phone: ~45 ms of the ~150 ms spent matching selectors). The children
those selectors mean are always the same (pymdownx.tabbed writes a `<label>` per tab in
`.tabbed-labels` and a `.tabbed-block` per tab in `.tabbed-content`), so naming them changes no
match and files each rule with labels or tab blocks only.
"""

from __future__ import annotations

import re
from pathlib import Path

# `.tabbed-labels>:nth-child(3)`, `.tabbed-content > :first-child` (minified or not).
BARE_CHILD = re.compile(r"(\.tabbed-(labels|content)\s*>\s*)(?=:(?!:))")
NAMED = {"labels": "label", "content": ".tabbed-block"}


def narrow(css: str) -> tuple[str, int]:
    """`css` with each bare tab child named; how many were."""
    return BARE_CHILD.subn(lambda m: m.group(1) + NAMED[m.group(2)], css)


def narrow_tab_selectors(stylesheets: list[Path]) -> int:
    """Rewrite the stylesheets in place (idempotent); how many selectors were narrowed."""
    count = 0
    for path in stylesheets:
        new, n = narrow(path.read_text(encoding="utf-8"))
        if n:
            path.write_text(new, encoding="utf-8")
            count += n
    return count
