"""The documents stay true to the code: every relative link and anchor resolves, every `make` target and
`python -m graders` option they name exists, and every project file or name they cite is still there
(issue 43: README drift was the most common gap examinations found)."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = ["README.md", "PROFESSORES.md", "ARCHITECTURE.md", "tests/benchmarks/README.md"]
# Options the documents name that belong to another program than `python -m graders`, and where it is.
OTHER_PROGRAMS = {"--sem-landlock": "tests/no_namespaces.py", "--exercicio": "graders/autograder/command.py"}
FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
# Top-level folders of the repository: a cited path starting with one of them must exist.
TOP = ("graders/", "sitebuild/", "docs/", "tests/", "exercises/", "overrides/", ".ci/")
# Folders ARCHITECTURE.md shortens (`lesson/widget.js`, `judge/points.py`): found by their tail.
SHORT = ("lesson/", "judge/", "cli/", "trace/", "sandbox/", "replay/", "kernel/", "formats/", "src/")


def text(doc: str) -> str:
    return (ROOT / doc).read_text(encoding="utf-8")


def _lines(doc: str, fenced_wanted: bool) -> list[str]:
    """The document's lines outside fenced code blocks, or inside them."""
    out, fenced = [], False
    for line in text(doc).splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif fenced == fenced_wanted:
            out.append(line)
    return out


def prose_lines(doc: str) -> list[str]:
    return _lines(doc, False)


def code_lines(doc: str) -> list[str]:
    return _lines(doc, True)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (accents kept), spaces to hyphens."""
    heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", heading).replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    found, seen = set(), {}
    for line in prose_lines(str(doc.relative_to(ROOT))):
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            found.add(base if count == 0 else f"{base}-{count}")
            seen[base] = count + 1
    return found


def git_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [line for line in listed.splitlines() if (ROOT / line).exists()] + DOCUMENTS


@pytest.mark.parametrize("doc", DOCUMENTS)
def test_every_relative_link_resolves(doc):
    broken = []
    for line in prose_lines(doc):
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target):  # https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            resolved = (ROOT / doc).parent / path if path else ROOT / doc
            if not resolved.exists():
                broken.append(f"{target}: no such file")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved.resolve()):
                broken.append(f"{target}: no heading with that anchor in {path or doc}")
    assert not broken, f"{doc}: {broken}"


def test_the_checker_sees_a_broken_anchor():
    assert slug("O que a verificação no navegador vale") == "o-que-a-verificação-no-navegador-vale"
    assert slug("Saber quem é quem") == "saber-quem-é-quem"
    assert slug("MkDocs or Zensical") == "mkdocs-or-zensical"
    assert "isolamento" in anchors(ROOT / "PROFESSORES.md")
    assert "isolation" not in anchors(ROOT / "PROFESSORES.md")


def makefile_targets() -> set[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", makefile, re.M))


@pytest.mark.parametrize("doc", DOCUMENTS)
def test_every_make_target_named_exists(doc):
    named = set(re.findall(r"(?:^|`|\s)make ([a-z][\w-]*)", text(doc), re.M))
    assert named, f"{doc} names no make target"
    assert named <= makefile_targets(), f"{doc} names make targets the Makefile lacks: {named - makefile_targets()}"


def graders_options() -> set[str]:
    from graders.cli.options import build_parser

    return {option for action in build_parser()._actions for option in action.option_strings}


@pytest.mark.parametrize("doc", ["README.md", "PROFESSORES.md"])
def test_every_option_named_exists(doc):
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text(doc)))
    unknown = sorted(named - graders_options() - set(OTHER_PROGRAMS))
    assert not unknown, f"{doc} names options python -m graders does not have: {unknown}"
    for option, program in OTHER_PROGRAMS.items():
        if option in named:
            assert option in (ROOT / program).read_text(encoding="utf-8"), f"{option} is not in {program}"


@pytest.mark.parametrize("doc", DOCUMENTS)
def test_every_graders_command_line_parses(doc):
    """Each `python -m graders …` line of a code block is one the CLI accepts (exercise, format, values)."""
    from graders.cli import options

    commands = [line for line in code_lines(doc) if re.search(r"python3? -m graders ", line)]
    for line in commands:
        words = shlex.split(line.split("#", 1)[0].split(">", 1)[0])
        args = words[words.index("graders") + 1:]
        if args[:1] == ["autograder"]:
            from graders.autograder.command import build_parser

            build_parser().parse_args(args[1:])  # exits 2 on anything the command refuses
            continue
        parsed = options.parse(args)  # exits 2 on anything the CLI refuses
        assert parsed.files, line


def test_the_readme_grades_a_class_in_three_commands():
    lines = [line for line in code_lines("README.md") if re.search(r"python3? -m graders ", line)]
    assert len(lines) == 3


BARE = re.compile(r"[\w.-]+\.(py|js|mjs|md|toml|json|css|html)")
# Where a bare file name (`widget.js`) is a module of the project, not an example of a student's file.
BARE_NAMES_ARE_MODULES = ("ARCHITECTURE.md", "tests/benchmarks/README.md")
# Files the product reads or writes at run time, not files of the repository.
RUN_TIME_FILES = {"checkpoint.json"}


def cited_paths(lines: list[str], bare: bool) -> list[str]:
    """Backticked paths to project files (placeholders such as <id> and globs left out); with `bare`,
    bare file names too."""
    out = []
    for line in lines:
        for token in CODE.findall(line):
            token = token.strip()
            if " " in token or any(ch in token for ch in "<>*…{}|") or token.startswith(("/", "--")):
                continue
            if token.startswith(TOP + SHORT) or (bare and BARE.fullmatch(token) and token not in RUN_TIME_FILES):
                out.append(token.rstrip("/"))
    return out


def missing_paths(lines: list[str], bare: bool, root: Path, files: list[str]) -> list[str]:
    folders = {str(p) for f in files for p in Path(f).parents}
    missing = []
    for token in cited_paths(lines, bare):
        if token.startswith(TOP):
            if not (root / token).exists():
                missing.append(token)
        elif not any(f == token or f.endswith("/" + token) for f in files) and not any(
                d == token or d.endswith("/" + token) for d in folders):
            missing.append(token)
    return missing


@pytest.mark.parametrize("doc", DOCUMENTS)
def test_every_project_file_cited_exists(doc):
    missing = missing_paths(prose_lines(doc), doc in BARE_NAMES_ARE_MODULES, ROOT, git_files())
    assert not missing, f"{doc} cites files that do not exist: {missing}"


def test_the_checker_sees_a_moved_file():
    """The file issue 43 moved (graders/cli/sandbox.py) is caught, in full and shortened."""
    files = ["graders/sandbox/sandbox.py", "docs/assets/javascripts/lesson/widget.js"]
    lines = ["`graders/cli/sandbox.py`, `cli/sandbox.py`, `lesson/widget.js`, `sandbox.py`, `turns.py`, `<id>/x.py`"]
    assert missing_paths(lines, True, ROOT, files) == ["graders/cli/sandbox.py", "cli/sandbox.py", "turns.py"]
    assert missing_paths(lines, False, ROOT, files) == ["graders/cli/sandbox.py", "cli/sandbox.py"]


# Names ARCHITECTURE.md cites as where a decision lives: constants and functions, found in the sources.
SOURCES = ["graders", "sitebuild", "docs/assets/javascripts/lesson", "docs/sw.js", "tests"]


def source_text() -> str:
    parts = []
    for place in SOURCES:
        path = ROOT / place
        for file in ([path] if path.is_file() else sorted(path.rglob("*"))):
            if file.is_file() and file.suffix in (".py", ".js", ".mjs"):
                parts.append(file.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(parts)


def test_every_name_architecture_cites_is_in_the_code():
    sources = source_text()
    names = set()
    for line in prose_lines("ARCHITECTURE.md"):
        for token in CODE.findall(line):
            if re.fullmatch(r"[A-Z][A-Z0-9_]{3,}", token) or re.fullmatch(r"[A-Za-z_][\w.]*\(\)", token):
                names.add(token.removesuffix("()").rsplit(".", 1)[-1])
    assert names, "ARCHITECTURE.md cites no constant or function"
    missing = sorted(n for n in names if not re.search(rf"\b{re.escape(n)}\b", sources))
    assert not missing, f"ARCHITECTURE.md cites names the code lacks: {missing}"


def test_the_readme_is_short_names_the_two_commands_first_and_links_each_document():
    readme = text("README.md")
    assert len(readme.splitlines()) <= 150
    first = re.search(r"^## (.*)$", readme, re.M).group(1)
    assert first == "Os dois comandos"
    section = readme.split("## Os dois comandos", 1)[1].split("\n## ", 1)[0]
    assert "make serve" in section and "make test" in section
    for doc in DOCUMENTS[1:]:
        assert f"]({doc}" in readme, f"the README does not link {doc}"


def test_the_instructors_guide_keeps_a_section_each_for_moodle_vpl_and_isolation():
    headings = re.findall(r"^## (.*)$", text("PROFESSORES.md"), re.M)
    for name in ("Moodle", "VPL", "Isolamento", "Códigos de saída"):
        assert name in headings
