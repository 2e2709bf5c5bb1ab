"""A small reader for the built HTML pages: headings, code blocks, links and exercise blocks."""

from __future__ import annotations

import html.parser
from dataclasses import dataclass, field
from pathlib import Path

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class CodeBlock:
    language: str
    title: str
    text: str


@dataclass
class Exercise:
    id: str
    kind: str
    criteria: list[str] = field(default_factory=list)
    text: str = ""


class _Reader(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict]] = []
        self.ids: set[str] = set()
        self.headings: dict[str, str] = {}
        self.links: list[str] = []
        self.code_blocks: list[CodeBlock] = []
        self.exercises: list[Exercise] = []
        self.text_parts: list[str] = []
        self._heading: list | None = None
        self._code: list | None = None
        self._title: list | None = None
        self._block_lang = ""
        self._block_title = ""
        self._exercise: Exercise | None = None
        self._exercise_depth = 0

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        classes = a.get("class", "").split()
        if tag == "div" and "highlight" in classes:
            self._block_lang = next((c[len("language-"):] for c in classes if c.startswith("language-")), "")
            self._block_title = ""
        if tag == "span" and "filename" in classes:
            self._title = []
        if tag in {"h1", "h2", "h3", "h4"}:
            self._heading = [a.get("id", "")]
        if tag == "code" and self.stack and self.stack[-1][0] == "pre":
            self._code = []
        if tag == "section" and "exercise" in classes:
            self._exercise = Exercise(a.get("data-exercise", ""), a.get("data-kind", ""))
            self.exercises.append(self._exercise)
            self._exercise_depth = len(self.stack)
        if tag == "li" and self._exercise is not None and a.get("data-criterion"):
            self._exercise.criteria.append(a["data-criterion"])
        if tag not in VOID:
            self.stack.append((tag, a))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        while self.stack:
            open_tag, _ = self.stack.pop()
            if open_tag == tag:
                break
        if tag in {"h1", "h2", "h3", "h4"} and self._heading is not None:
            hid, *parts = self._heading
            self.headings[hid] = "".join(parts).replace("¶", "").strip()
            self._heading = None
        if tag == "span" and self._title is not None:
            self._block_title = "".join(self._title).strip()
            self._title = None
        if tag == "code" and self._code is not None:
            self.code_blocks.append(CodeBlock(self._block_lang, self._block_title, "".join(self._code)))
            self._code = None
        if tag == "section" and self._exercise is not None and len(self.stack) <= self._exercise_depth:
            self._exercise = None

    def handle_data(self, data):
        self.text_parts.append(data)
        # A code note's marker (sitebuild/code_notes.py) sits in the code but is not code.
        in_marker = any("lesson-note-marker" in a.get("class", "").split() for _, a in self.stack)
        for sink in (self._heading, None if in_marker else self._code, self._title):
            if sink is not None:
                sink.append(data)
        if self._exercise is not None:
            self._exercise.text += data


@dataclass
class Page:
    ids: set[str]
    headings: dict[str, str]
    links: list[str]
    code_blocks: list[CodeBlock]
    exercises: list[Exercise]
    text: str


def read_page(path: Path) -> Page:
    reader = _Reader()
    reader.feed(path.read_text(encoding="utf-8"))
    return Page(
        reader.ids,
        reader.headings,
        reader.links,
        reader.code_blocks,
        reader.exercises,
        " ".join("".join(reader.text_parts).split()),
    )
