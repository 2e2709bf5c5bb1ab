"""The site's MkDocs hooks: the `exercise` fence and the Pyodide vendoring fail loudly on bad input."""

from __future__ import annotations

import importlib.util
import json

import markdown
import pytest
from mkdocs.exceptions import PluginError
from pymdownx.superfences import SuperFencesException

from conftest import ROOT


def load_hook(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "overrides" / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


exercises_hook = load_hook("exercises")
vendor_hook = load_hook("vendor_pyodide")


def render(text):
    md = markdown.Markdown(extensions=["pymdownx.superfences"], extension_configs={
        "pymdownx.superfences": {"custom_fences": [
            {"name": "exercise", "class": "exercise", "format": exercises_hook.format_exercise}]}})
    return md.convert(text)


def test_exercise_fence_renders_the_widget_data_and_criteria():
    html = render("```exercise\nnivel-2\n```\n")
    assert 'data-exercise="nivel-2"' in html and html.count('<li class="exercise-criterion" data-criterion=') == 6
    start = html.index('data-widget="') + len('data-widget="')
    import html as html_lib

    data = json.loads(html_lib.unescape(html[start: html.index('"', start)]))
    assert data["starter"] == (ROOT / "exercises" / "nivel-2" / "starter.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("body", ["nivel-9", "../nivel-2", "Nível 2", ""])
def test_a_malformed_exercise_block_fails_the_build(body):
    with pytest.raises(SuperFencesException):
        render(f"```exercise\n{body}\n```\n")


def test_missing_pyodide_is_reported_in_portuguese(tmp_path):
    (tmp_path / "package-lock.json").write_text(json.dumps({"packages": {"node_modules/pyodide": {"version": "314.0.7"}}}))
    with pytest.raises(PluginError, match="npm ci"):
        vendor_hook._installed_dir(tmp_path)


def test_a_stale_pyodide_install_is_refused(tmp_path):
    (tmp_path / "package-lock.json").write_text(json.dumps({"packages": {"node_modules/pyodide": {"version": "314.0.7"}}}))
    (tmp_path / "node_modules" / "pyodide").mkdir(parents=True)
    (tmp_path / "node_modules" / "pyodide" / "package.json").write_text(json.dumps({"version": "313.0.0"}))
    with pytest.raises(PluginError, match="313.0.0"):
        vendor_hook._installed_dir(tmp_path)
