"""Both builders, MkDocs (the default) and Zensical, give the same site once the post-build step ran:
the same pages and text, the same exercises, the same Pyodide, and a fingerprinted service worker."""

from __future__ import annotations

import html
import json
import re
import tomllib

import pytest

from conftest import ROOT
from sitebuild import finish as step

PAGES = ["404.html", "index.html", "licao-2/index.html"]
SECTION = re.compile(r'<section class="exercise" data-exercise="([^"]+)".*?</section>', re.S)
CRITERION = re.compile(
    r'<li class="exercise-criterion" data-criterion="([^"]+)" data-state="pendente">.*?'
    r'<span class="exercise-criterion__label">(.*?)</span></li>', re.S)


@pytest.fixture(scope="module")
def sites(site_dir, zensical_site):
    return {"mkdocs": site_dir, "zensical": zensical_site}


def pages(site):
    return sorted(p.relative_to(site).as_posix() for p in step.pages(site))


def text(fragment: str) -> str:
    """What a reader sees of an HTML fragment: the text, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def article(site, page):
    source = (site / page).read_text(encoding="utf-8")
    return source[source.index("<article"): source.index("</article>")]


def exercises(site):
    """Each exercise block of the lesson: its whole HTML, and its criteria (id, title shown before checking)."""
    source = (site / "licao-2" / "index.html").read_text(encoding="utf-8")
    found = {}
    for match in SECTION.finditer(source):
        found[match.group(1)] = {"html": match.group(0),
                                 "criteria": [(cid, text(label)) for cid, label in CRITERION.findall(match.group(0))]}
    return found


def step_inline(markdown_text: str) -> str:
    """One line of exercise.toml Markdown, rendered as the fence renders it."""
    from sitebuild.exercise_fence import _inline

    return _inline(markdown_text)


def worker_build(site):
    return step.worker_build(site)


def test_both_builders_give_the_same_pages_with_the_same_text(sites):
    assert pages(sites["mkdocs"]) == pages(sites["zensical"]) == PAGES
    for page in ("index.html", "licao-2/index.html"):
        assert text(article(sites["mkdocs"], page)) == text(article(sites["zensical"], page)), page


def test_both_builders_give_the_same_exercises_with_neutral_titles(sites):
    built = {name: exercises(site) for name, site in sites.items()}
    assert list(built["mkdocs"]) == list(built["zensical"]) == ["quiz-sobrescrita", "nivel-1", "nivel-2"]
    for exercise_id, block in built["zensical"].items():
        assert block["html"] == built["mkdocs"][exercise_id]["html"], exercise_id
        toml = tomllib.loads((ROOT / "exercises" / exercise_id / "exercise.toml").read_text(encoding="utf-8"))
        # Before checking, each criterion shows its neutral title, never the label that gives the answer away.
        assert block["criteria"] == [(c["id"], text(step_inline(c["title"]))) for c in toml["criteria"]], exercise_id
        assert not [c["id"] for c in toml["criteria"] if text(step_inline(c["label"])) in text(block["html"])]



@pytest.mark.parametrize("builder", ["mkdocs", "zensical"])
def test_each_build_ships_pyodide_the_service_worker_and_its_fingerprint(sites, builder):
    site = sites[builder]
    package = ROOT / "node_modules" / "pyodide"
    for name in step.PYODIDE_FILES:
        assert (site / "pyodide" / name).read_bytes() == (package / name).read_bytes(), name
    build = worker_build(site)
    assert re.fullmatch(r"[0-9a-f]{16}", build["version"]) and re.fullmatch(r"[0-9a-f]{16}", build["pyodide"])
    assert build == step.build_info(site, True), "sw.js does not carry this build's fingerprint"
    assert {"", "licao-2/", "assets/python/lesson.zip", "assets/javascripts/lesson/main.js"} <= set(build["precache"])
    for path in build["precache"]:
        assert (site / (path + "index.html" if path == "" or path.endswith("/") else path)).is_file(), path
    for page in PAGES:
        source = (site / page).read_text(encoding="utf-8")
        assert '<meta name="lesson-service-worker" content="on">' in source, page
    assert "window.__lessonEarlyWorker" in (site / "licao-2" / "index.html").read_text(encoding="utf-8")
    assert (site / "assets" / "python" / "lesson.zip").read_bytes() == step.bundle_bytes(ROOT)


def test_both_builds_run_the_same_python(sites):
    mkdocs, zensical = (worker_build(site) for site in sites.values())
    assert mkdocs["pyodide"] == zensical["pyodide"] and mkdocs["pyodideFiles"] == zensical["pyodideFiles"]


@pytest.mark.parametrize("builder", ["mkdocs", "zensical"])
def test_no_build_code_is_published_and_nothing_loads_from_another_origin(sites, builder):
    site = sites[builder]
    assert not (site / "hooks").exists()
    assert not list(site.rglob("*.py"))
    for page in step.pages(site):
        match = step.FOREIGN_LOAD.search(page.read_text(encoding="utf-8"))
        assert match is None, f"{page.relative_to(site)} loads from another origin: {match.group(0)}"


def test_zensical_is_the_pinned_release(zensical_build):
    pinned = re.search(r'"zensical==([^"]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8")).group(1)
    site, _ = zensical_build
    assert f'<meta name="generator" content="zensical-{pinned}">' in (site / "index.html").read_text(encoding="utf-8")
    assert json.loads((site / "search.json").read_text(encoding="utf-8"))["items"], "Zensical's search index is empty"
