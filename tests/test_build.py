"""The site builds strict-clean and ships its own Pyodide runtime."""

import json
import re

from conftest import ROOT

PYODIDE_CORE = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")


def test_strict_build_prints_no_warning(build):
    _, log = build
    assert not re.search(r"\b(WARNING|ERROR)\b", log), log


def test_pyodide_core_is_vendored_byte_for_byte(site_dir):
    package = ROOT / "node_modules" / "pyodide"
    for name in PYODIDE_CORE:
        shipped = site_dir / "pyodide" / name
        assert shipped.is_file(), f"{name} missing from the build"
        assert shipped.read_bytes() == (package / name).read_bytes(), f"{name} differs from node_modules"


def test_vendored_pyodide_is_the_pinned_version(site_dir):
    pinned = json.loads((ROOT / "package.json").read_text())["dependencies"]["pyodide"]
    locked = json.loads((ROOT / "package-lock.json").read_text())["packages"]["node_modules/pyodide"]["version"]
    assert pinned == locked, "package.json must pin an exact Pyodide version"
    # The runtime names its own version; the shipped copy must be the pinned one.
    assert f'"{pinned}"' in (site_dir / "pyodide" / "pyodide.mjs").read_text(encoding="utf-8")


def test_python_pins_are_exact():
    text = (ROOT / "pyproject.toml").read_text()
    for name in ("mkdocs", "mkdocs-material", "pymdown-extensions", "zensical", "pytest", "playwright"):
        assert re.search(rf'"{re.escape(name)}==[0-9][^"]*"', text), f"{name} is not pinned with =="


def test_no_page_references_another_origin(site_dir):
    # Links the reader clicks (the sources) may leave; nothing the page *loads* may.
    # rel=canonical names the page's public address; it loads nothing.
    loaders = re.compile(r'<(?:script|link(?![^>]*rel="canonical")|img|iframe|source)\b[^>]*\b(?:src|href)="(https?:)?//', re.I)
    for page in site_dir.rglob("*.html"):
        match = loaders.search(page.read_text(encoding="utf-8"))
        assert match is None, f"{page.relative_to(site_dir)} loads from another origin: {match.group(0)}"


def test_search_index_holds_the_lesson(site_dir):
    index = json.loads((site_dir / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert index["config"]["lang"] == ["pt"]
    texts = " ".join(doc["text"] for doc in index["docs"])
    assert "pendingToolUse" in texts and "os.replace" in texts


def test_every_footer_speaks_portuguese(site_dir):
    for page in site_dir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        if 'class="md-copyright"' in html:
            assert "Made with" not in html and "Feito com" in html, page


def _worker_build(site_dir):
    import json

    source = (site_dir / "sw.js").read_text(encoding="utf-8")
    start = source.index("const BUILD = ") + len("const BUILD = ")
    return json.loads(source[start: source.index(";\n", start)])


def test_service_worker_is_versioned_by_the_build_and_precaches_the_site_not_python(site_dir):
    build = _worker_build(site_dir)
    assert len(build["version"]) == 16 and len(build["pyodide"]) == 16
    precache = build["precache"]
    assert "" in precache and "licao-2/" in precache and "assets/python/lesson.zip" in precache
    assert not [p for p in precache if p.startswith("pyodide/") or p.endswith(".map") or p == "sw.js"]
    for path in precache:  # every listed address exists in the build
        target = site_dir / (path + "index.html" if path == "" or path.endswith("/") else path)
        assert target.is_file(), path
    for page in ("index.html", "licao-2/index.html", "404.html"):
        assert '<meta name="lesson-service-worker" content="on">' in (site_dir / page).read_text(encoding="utf-8")


def test_service_worker_fingerprint_follows_every_precached_byte(site_dir, tmp_path):
    import shutil

    from sitebuild import finish as hook

    copy = tmp_path / "site"
    # Pyodide's big files are left out; pyodide.mjs stays (the build reads its version).
    shutil.copytree(site_dir, copy, ignore=shutil.ignore_patterns("*.wasm", "python_stdlib.zip", "pyodide.asm.mjs"))
    before = hook.build_info(copy, True)
    assert before["version"] == _worker_build(site_dir)["version"]
    widget = copy / "assets" / "javascripts" / "lesson" / "widget.js"
    widget.write_bytes(widget.read_bytes() + b"\n")
    assert hook.build_info(copy, True)["version"] != before["version"]
    assert hook.build_info(copy, False) == {"off": True}
