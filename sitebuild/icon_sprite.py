"""The theme's inline SVG icons (CSS `url("data:image/svg+xml,…")`) gathered into one sprite file.

Chromium makes every distinct SVG image its own isolated document; at the lesson's first layout
that cost a slow phone ~50 ms per icon (~0.5 s in one frame, after the first paint). One file
with a `<view>` per icon is one document: `url(icons.svg#i3)` shows the icon of view `i3`.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

# The theme writes them as url("data:image/svg+xml;charset=utf-8,<svg …>…</svg>").
DATA_SVG = re.compile(r"""url\("data:image/svg\+xml;charset=utf-8,(<svg\b[^"]*?</svg>)"\)""")
ROOT_TAG = re.compile(r"<svg\b([^>]*)>")
VIEW_BOX = re.compile(r"""viewBox=['"]([-\d.\s]+)['"]""")
SPRITE_NAME = "icons.svg"


def _place(svg: str, top: float) -> tuple[str, str]:
    """The icon as a nested <svg> at `top` of the sprite, and the viewBox that shows it there."""
    root = ROOT_TAG.match(svg)
    box = VIEW_BOX.search(root.group(1)) if root else None
    if not box:
        raise ValueError(f"ícone SVG sem viewBox: {svg[:80]}")
    x, y, width, height = (float(n) for n in box.group(1).split())
    inner = svg[root.end():svg.rindex("</svg>")]
    nested = (f'<svg x="0" y="{top:g}" width="{width:g}" height="{height:g}" '
              f'viewBox="{x:g} {y:g} {width:g} {height:g}">{inner}</svg>')
    return nested, f"0 {top:g} {width:g} {height:g}"


def build_sprite(icons: list[str]) -> str:
    """One SVG document holding every icon, one under the other with a gap, each named by a view."""
    parts, views, top = [], [], 0.0
    for index, svg in enumerate(icons):
        nested, view_box = _place(svg, top)
        parts.append(nested)
        views.append(f'<view id="i{index}" viewBox="{view_box}"/>')
        top += float(view_box.split()[3]) * 2  # a gap as tall as the icon: nothing bleeds into a view
    return '<svg xmlns="http://www.w3.org/2000/svg">' + "".join(views) + "".join(parts) + "</svg>\n"


def sprite_stylesheets(site: Path, stylesheets: list[Path]) -> Path | None:
    """Rewrite the stylesheets' inline SVG icons to views of one sprite next to them; its path."""
    texts = {path: path.read_text(encoding="utf-8") for path in stylesheets}
    icons: list[str] = []
    for text in texts.values():
        for match in DATA_SVG.finditer(text):
            if match.group(1) not in icons:
                icons.append(match.group(1))
    if not icons:
        return None
    sprite = build_sprite(icons)
    # Named by its content, as the theme names its files, so a cache never serves an old one.
    name = f"icons.{hashlib.sha256(sprite.encode()).hexdigest()[:8]}.svg"
    target = site / "assets" / "images" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(sprite, encoding="utf-8")
    for path, text in texts.items():
        relative = Path(*[".."] * len(path.parent.relative_to(site).parts), "assets", "images", name).as_posix()
        new = DATA_SVG.sub(lambda m: f'url("{relative}#i{icons.index(m.group(1))}")', text)
        if new != text:
            path.write_text(new, encoding="utf-8")
    return target
