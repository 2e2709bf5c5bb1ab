"""The front-end files the site ships: the editor bundle is the lockfile's build; the graders zip is the source."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import zipfile

import pytest

from conftest import ROOT
from sitebuild.exercise_notes import strip_notes

BUNDLE = ROOT / "docs" / "assets" / "javascripts" / "vendor" / "codemirror"
LOADER = ROOT / "docs" / "assets" / "javascripts" / "lesson" / "editor-loader.js"


def test_shipped_editor_bundle_matches_a_fresh_build(tmp_path):
    assert shutil.which("make") and (ROOT / "node_modules" / ".bin" / "esbuild").exists()
    fresh = tmp_path / "codemirror"
    run = subprocess.run(["make", "-s", "editor", f"EDITOR_DIR={fresh}"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    shipped = {p.name: p.read_bytes() for p in BUNDLE.iterdir()}
    assert {p.name: p.read_bytes() for p in fresh.iterdir()} == shipped, "run `make editor` and commit the bundle"
    # The loader evaluates every entry the build makes, the editor last; the chunks come with them.
    entries = sorted(name[:-3] for name in shipped if not name.startswith("chunk-"))
    pieces = re.search(r"const PIECES = \[(.*?)\];", LOADER.read_text(encoding="utf-8")).group(1)
    listed = re.findall(r'"([\w-]+)"', pieces)
    assert sorted(listed) == entries and listed[-1] == "editor"


def test_graders_zip_holds_the_graders_and_exercises(site_dir):
    with zipfile.ZipFile(io.BytesIO((site_dir / "assets" / "python" / "lesson.zip").read_bytes())) as zf:
        names = set(zf.namelist())
        for module in ("graders/grading.py", "graders/trace/runner.py", "graders/judge/nivel2.py", "graders/replay/states.py", "graders/web.py", "exercises/nivel-2/exercise.toml",
                       "exercises/nivel-2/solution.py"):
            assert module in names
            source = (ROOT / module).read_bytes()
            if module.endswith(".toml"):  # the reviewers' notes on each option stay out of the site
                source = strip_notes(source.decode("utf-8")).encode("utf-8")
            assert zf.read(module) == source
        assert not {"graders/cli.py", "graders/sandbox.py", "graders/forkserver.py"} & names


@pytest.mark.browser
def test_exercises_are_readable_without_javascript(browser, site_url):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + "licao-2/")
    section = page.locator("section.exercise[data-exercise='nivel-2']")
    assert section.locator("fieldset legend").count() == 4
    assert section.locator("li[data-criterion]").count() == 6
    assert "ative o JavaScript" in section.inner_text()
    assert page.get_by_role("radio").count() > 10
    context.close()
