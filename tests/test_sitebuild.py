"""The site's own build steps (sitebuild/): the `exercise` fence and the post-build step fail loudly on
bad input, with either builder, and the post-build step can run twice on the same folder."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import markdown
import pytest
from pymdownx.superfences import SuperFencesException

from conftest import ROOT
from sitebuild import exercise_fence
from sitebuild import finish as step
from sitebuild.serve import builder_command, stage
from sitebuild.theme_selectors import narrow


def render(text):
    md = markdown.Markdown(extensions=["pymdownx.superfences"], extension_configs={
        "pymdownx.superfences": {"custom_fences": [
            {"name": "exercise", "class": "exercise", "format": exercise_fence.format_exercise}]}})
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


@pytest.mark.parametrize("builder", ["mkdocs", "zensical"])
def test_a_malformed_exercise_block_fails_either_builder(builder, tmp_path):
    project = stage(ROOT, tmp_path / "project")
    lesson = project / "docs" / "licao-2.md"
    lesson.write_text(lesson.read_text(encoding="utf-8") + "\n```exercise\nnivel-9\n```\n", encoding="utf-8")
    proc = subprocess.run(builder_command(builder, project / "site"), cwd=project, capture_output=True, text=True,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode != 0, f"{builder} built a page with an unknown exercise"
    assert "Exercício desconhecido 'nivel-9'" in proc.stdout + proc.stderr


def test_missing_pyodide_is_reported_in_portuguese(tmp_path):
    (tmp_path / "package-lock.json").write_text(json.dumps({"packages": {"node_modules/pyodide": {"version": "314.0.7"}}}))
    with pytest.raises(step.BuildError, match="npm ci"):
        step.installed_pyodide(tmp_path)


def test_a_stale_pyodide_install_is_refused(tmp_path):
    (tmp_path / "package-lock.json").write_text(json.dumps({"packages": {"node_modules/pyodide": {"version": "314.0.7"}}}))
    (tmp_path / "node_modules" / "pyodide").mkdir(parents=True)
    (tmp_path / "node_modules" / "pyodide" / "package.json").write_text(json.dumps({"version": "313.0.0"}))
    with pytest.raises(step.BuildError, match="313.0.0"):
        step.installed_pyodide(tmp_path)


def _files(site):
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


@pytest.fixture
def site_copy(site_dir, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(site_dir, copy)
    return copy


def test_the_post_build_step_gives_the_same_bytes_when_run_again(site_copy):
    before = _files(site_copy)
    step.finish(site_copy, service_worker=True)
    assert _files(site_copy) == before


def test_the_check_refuses_a_site_whose_exercises_did_not_render(site_copy):
    """What Zensical gave when the fence came from a MkDocs hook: the lesson without its exercises."""
    page = site_copy / "licao-2" / "index.html"
    page.write_text(re.sub(r'<section class="exercise".*?</section>', "", page.read_text(encoding="utf-8"), flags=re.S),
                    encoding="utf-8")
    with pytest.raises(step.BuildError, match="não viraram exercícios"):
        step.finish(site_copy, service_worker=True)


def test_the_check_refuses_build_code_published_in_the_site(site_copy):
    (site_copy / "hooks").mkdir()
    (site_copy / "hooks" / "exercises.py").write_text("def on_config(config): ...\n")
    with pytest.raises(step.BuildError, match="hooks/exercises.py"):
        step.finish(site_copy, service_worker=True)


def test_the_check_refuses_a_page_that_loads_from_another_origin(site_copy):
    page = site_copy / "index.html"
    page.write_text(page.read_text(encoding="utf-8").replace(
        "</head>", '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">\n</head>'), encoding="utf-8")
    with pytest.raises(step.BuildError, match="outra origem"):
        step.finish(site_copy, service_worker=True)


def test_the_theme_waits_for_a_gesture_on_pages_with_exercises_and_is_deferred_elsewhere(site_dir):
    lesson = (site_dir / "licao-2" / "index.html").read_text(encoding="utf-8")
    home = (site_dir / "index.html").read_text(encoding="utf-8")
    bundle = re.search(r'"(\.\./assets/javascripts/bundle\.[0-9a-f]+\.min\.js)"', lesson)
    assert bundle and (site_dir / "licao-2" / bundle.group(1)).resolve().is_file()
    assert step.THEME_ON_DEMAND_MARK in lesson and "bundle." not in "".join(re.findall(r"<script[^>]*src=[^>]*>", lesson))
    assert re.search(r'<script defer src="assets/javascripts/bundle\.[0-9a-f]+\.min\.js"></script>', home)
    assert step.THEME_ON_DEMAND_MARK not in home
    for html in (lesson, home):  # the first paint's palette, right after the theme's own palette script
        assert html.count(step.PALETTE_MARK) == 1
        assert re.search(step.THEME_PALETTE.pattern + r"<script>/\* The theme applies the palette", html)


def test_the_check_refuses_a_lesson_that_loads_the_theme_before_a_gesture(site_copy):
    page = site_copy / "licao-2" / "index.html"
    html = page.read_text(encoding="utf-8")
    loader = re.search(r"<script>/\* The theme's script \(mkdocs-material's bundle\).*?</script>", html, re.S)
    url = json.loads(re.search(r'\}\)\(("[^"]+")\);', loader.group(0)).group(1))
    page.write_text(html.replace(loader.group(0), f'<script defer src="{url}"></script>'), encoding="utf-8")
    with pytest.raises(step.BuildError, match="antes de o leitor buscar"):
        step.check(ROOT, site_copy, True)


def test_every_region_that_can_scroll_sideways_is_focusable_in_the_built_page(site_dir):
    """Whether a block overflows depends on the reader's fonts and screen: the build decides."""
    lesson = (site_dir / "licao-2" / "index.html").read_text(encoding="utf-8")
    blocks = re.findall(r"<pre\b[^>]*>(?:<span></span>)?<code\b[^>]*>", lesson)
    tabs = re.findall(r'<div class="tabbed-labels\b[^>]*>', lesson)
    assert len(blocks) >= 5 and tabs
    assert all('tabindex="0"' in tag for tag in blocks + tabs)


def test_the_theme_tab_selectors_name_the_children_they_style(site_dir):
    """A selector ending in a bare `:nth-child(n)` is tried on every element of the page: the built
    CSS names the tab's label or block instead (sitebuild/theme_selectors.py)."""
    css = "".join(p.read_text(encoding="utf-8") for p in (site_dir / "assets" / "stylesheets").glob("*.css"))
    bare = re.findall(r"\.tabbed-(?:labels|content)\s*>\s*:[\w-]+", css)
    assert bare == []
    assert len(re.findall(r"\.tabbed-labels>label:nth-child\(\d+\)", css)) >= 100
    assert len(re.findall(r"\.tabbed-content>\.tabbed-block:nth-child\(\d+\)", css)) >= 10
    # No code line anchors (mkdocs.yml drops anchor_linenums): ~140 hidden elements on the lesson.
    assert "__codelineno" not in (site_dir / "licao-2" / "index.html").read_text(encoding="utf-8")


def test_narrowing_the_tab_selectors_keeps_pseudo_elements_and_is_idempotent():
    css = (".a .tabbed-set>input:nth-child(2):checked~.tabbed-labels>:nth-child(2),"
           ".tabbed-content > :first-child{x:1}.tabbed-labels>::before{y:2}.tabbed-labels>label:hover{z:3}")
    once, count = narrow(css)
    assert count == 2
    assert once == (".a .tabbed-set>input:nth-child(2):checked~.tabbed-labels>label:nth-child(2),"
                    ".tabbed-content > .tabbed-block:first-child{x:1}.tabbed-labels>::before{y:2}"
                    ".tabbed-labels>label:hover{z:3}")
    assert narrow(once) == (once, 0)


def test_the_check_refuses_a_code_block_the_keyboard_cannot_reach(site_copy):
    page = site_copy / "licao-2" / "index.html"
    html = page.read_text(encoding="utf-8")
    page.write_text(html.replace('<code tabindex="0"', "<code", 1), encoding="utf-8")
    with pytest.raises(step.BuildError, match="sem foco de teclado"):
        step.check(ROOT, site_copy, True)
    step.finish(site_copy, service_worker=True)  # the step itself puts it back
    assert page.read_text(encoding="utf-8") == html


def test_the_check_refuses_a_page_painted_with_the_builders_palette(site_copy):
    page = site_copy / "index.html"
    html = page.read_text(encoding="utf-8")
    page.write_text(re.sub(r"<script>/\* The theme applies the palette.*?</script>", "", html, flags=re.S), encoding="utf-8")
    with pytest.raises(step.BuildError, match="paleta errada"):
        step.check(ROOT, site_copy, True)


def test_the_command_line_says_what_is_missing(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "sitebuild", "finish", str(tmp_path), "--config", str(ROOT / "mkdocs.yml")],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 1 and "não tem index.html" in proc.stderr


@pytest.mark.parametrize(("env", "extra", "on"), [
    ({}, "", True), ({"SERVICE_WORKER": "0"}, "", False), ({"SERVICE_WORKER": "true"}, "", True),
    ({}, "extra:\n  service_worker: false\n", False),
])
def test_the_service_worker_switch_is_read_from_mkdocs_yml(env, extra, on, tmp_path, monkeypatch):
    monkeypatch.delenv("SERVICE_WORKER", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    source = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    if extra:
        source = re.sub(r"^extra:\n(?:  .*\n)+", extra, source, flags=re.M)
    (tmp_path / "mkdocs.yml").write_text(source, encoding="utf-8")
    assert step.service_worker_setting(tmp_path / "mkdocs.yml") is on


def test_serve_with_zensical_builds_finishes_and_serves_wasm_as_wasm():
    """`make serve BUILDER=zensical`: never into site/, the service worker off, .wasm as application/wasm
    (Zensical's own server sends application/octet-stream, which the browser refuses to compile)."""
    import socket
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    worker = ROOT / "site" / "sw.js"
    before = worker.stat().st_mtime_ns if worker.exists() else None
    proc = subprocess.Popen(
        [sys.executable, "-m", "sitebuild", "serve", "--builder", "zensical", "--dev-addr", f"127.0.0.1:{port}",
         "--config", str(ROOT / "mkdocs.yml")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                lesson = urllib.request.urlopen(url + "licao-2/").read().decode()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "the server never came up"
                time.sleep(0.3)
        assert 'data-exercise="nivel-2"' in lesson and '<meta name="lesson-service-worker" content="off">' in lesson
        with urllib.request.urlopen(url + "pyodide/pyodide.asm.wasm") as response:
            assert response.headers["Content-Type"] == "application/wasm"
        assert '"off":true' in urllib.request.urlopen(url + "sw.js").read().decode()
    finally:
        proc.terminate()
        output = proc.communicate(timeout=20)[0]
    assert proc.returncode == 0, output
    assert (worker.stat().st_mtime_ns if worker.exists() else None) == before, "serve wrote into site/"


def test_the_theme_icons_become_views_of_one_sprite(site_dir):
    # Each inline SVG image is a document of its own in Chromium (~50 ms each on a slow phone).
    css = "".join(p.read_text(encoding="utf-8") for p in (site_dir / "assets" / "stylesheets").glob("*.css"))
    assert "data:image/svg+xml" not in css
    refs = set(re.findall(r'url\("\.\./\.\./assets/images/(icons\.[0-9a-f]{8}\.svg)#(i\d+)"\)', css))
    assert len({name for name, _ in refs}) == 1 and len(refs) > 10
    sprite = (site_dir / "assets" / "images" / next(iter(refs))[0]).read_text(encoding="utf-8")
    for _, view in refs:
        assert f'<view id="{view}" viewBox="' in sprite


def test_a_sprite_view_shows_exactly_its_icon():
    from sitebuild.icon_sprite import build_sprite

    sprite = build_sprite(["<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'><path d='M1 1h2'/></svg>",
                           "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 320 512'><path d='M2 2h3'/></svg>"])
    assert '<view id="i0" viewBox="0 0 24 24"/>' in sprite
    # The second icon sits below the first with a gap, at its own size and with its own viewBox.
    assert '<view id="i1" viewBox="0 48 320 512"/>' in sprite
    assert '<svg x="0" y="48" width="320" height="512" viewBox="0 0 320 512"><path d=\'M2 2h3\'/></svg>' in sprite


def test_the_entry_module_runs_at_domcontentloaded_and_is_fetched_early(site_dir, site_copy):
    """main.js is preloaded and imported at DOMContentLoaded, never a deferred module script (which made
    Chromium lay out the rest of the lesson in one long task after the first paint); the check refuses
    a page that loads it the old way, and the step turns it back."""
    for rel in ("index.html", "licao-2/index.html"):
        html = (site_dir / rel).read_text(encoding="utf-8")
        url = "assets/javascripts/lesson/main.js" if rel == "index.html" else "../assets/javascripts/lesson/main.js"
        assert f'<link rel="modulepreload" href="{url}">' in html
        # A page-relative URL is no module specifier: import() gets it resolved against the page.
        assert f'import(new URL("{url}", document.baseURI).href); }});' in html
        assert not step.LESSON_MODULE.search(html) and html.count("lesson/main.js") == 2
        assert (site_dir / rel).parent.joinpath(url).resolve().is_file()
    page = site_copy / "licao-2" / "index.html"
    html = page.read_text(encoding="utf-8")
    loader = step.LESSON_LOADER.format(url="../assets/javascripts/lesson/main.js",
                                       js_url='"../assets/javascripts/lesson/main.js"')
    page.write_text(html.replace(loader, '<script src="../assets/javascripts/lesson/main.js" type="module"></script>'),
                    encoding="utf-8")
    with pytest.raises(step.BuildError, match="módulo adiado"):
        step.check(ROOT, site_copy, True)
    step.finish(site_copy, service_worker=True)
    assert page.read_text(encoding="utf-8") == html
