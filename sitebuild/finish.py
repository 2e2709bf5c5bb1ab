"""The post-build step: what turns a builder's `site/` into the lesson site, with either builder.

MkDocs and Zensical both render the pages (and the `exercise` fence, see exercise_fence.py).
Everything else the site needs is done here, on the finished folder, by plain Python:

1. vendor the pinned Pyodide runtime from node_modules/ into `pyodide/` (no CDN);
2. pack the graders and the exercise files into `assets/python/lesson.zip` (the page's Python);
3. tag every page: whether the service worker is on (a meta tag offline.js reads), every code
   block and row of tabs focusable (it may scroll sideways), code annotations in their final
   form (code_notes.py), copy buttons (code_copy.py) and the answers' export areas
   (export_area.py), the first
   paint's palette (palette_first_paint.js), the theme's script deferred and, on pages with
   exercises, the inline script that starts Python first thing in <head> and the theme's script
   loaded only when the reader reaches for the search (theme_on_demand.js); the theme's inline SVG
   icons gathered into one sprite file (icon_sprite.py) and its tab selectors narrowed to the
   elements they style (theme_selectors.py);
4. write the build's fingerprint and file list into `sw.js` (last: it hashes all of the above);
5. check the result: every exercise of the Markdown rendered, Pyodide complete, `sw.js`
   fingerprinted, every page tagged, no Python source published, nothing loaded from another origin.

Run on the same folder twice, it gives the same bytes (the Makefile runs it after either builder;
the MkDocs hook in sitebuild/mkdocs_hook.py runs it too, so a bare `mkdocs build` is complete).
Errors are `BuildError`, in Portuguese, for the instructor who runs the build.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import posixpath
import re
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

from sitebuild.code_copy import add_copy_buttons
from sitebuild.export_area import build_export_areas
from sitebuild.code_notes import render_code_notes
from sitebuild.exercise_notes import NoteError, strip_notes
from sitebuild.icon_sprite import sprite_stylesheets
from sitebuild.theme_selectors import narrow_tab_selectors

ROOT = Path(__file__).resolve().parents[1]


class BuildError(Exception):
    """The site cannot be finished or is not what students must get."""


# --- 1. Pyodide ------------------------------------------------------------------------------

# What `loadPyodide()` fetches to boot the interpreter with the standard library; the graders
# need nothing more.
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
PYODIDE_DIR = "pyodide"


def pinned_pyodide(root: Path) -> str:
    lock = json.loads((root / "package-lock.json").read_text(encoding="utf-8"))
    return lock["packages"]["node_modules/pyodide"]["version"]


def installed_pyodide(root: Path) -> Path:
    """node_modules/pyodide, refused when missing or not the version package-lock.json pins."""
    package_dir = root / "node_modules" / "pyodide"
    manifest = package_dir / "package.json"
    if not manifest.is_file():
        raise BuildError(
            "Pyodide não está instalado em node_modules/. Rode `npm ci` "
            "(ou `make build`, que faz isso sozinho) antes de construir o site."
        )
    installed = json.loads(manifest.read_text(encoding="utf-8"))["version"]
    pinned = pinned_pyodide(root)
    if installed != pinned:
        raise BuildError(
            f"node_modules/pyodide está na versão {installed}, mas o package-lock.json "
            f"fixa {pinned}. Rode `npm ci` para instalar a versão fixada."
        )
    return package_dir


def vendor_pyodide(root: Path, site: Path) -> None:
    package_dir = installed_pyodide(root)
    target = site / PYODIDE_DIR
    target.mkdir(parents=True, exist_ok=True)
    for name in PYODIDE_FILES:
        source = package_dir / name
        if not source.is_file():
            raise BuildError(f"Arquivo do Pyodide ausente: node_modules/pyodide/{name}.")
        shutil.copyfile(source, target / name)


# --- 2. The page's Python: graders and exercises -----------------------------------------------

BUNDLE = "assets/python/lesson.zip"
# CLI-only modules and packages (paths inside graders/, the platforms' autograders included): they use
# subprocess, seccomp and resource limits, which Pyodide lacks.
BUNDLE_SKIP = ("__main__.py", "cli/", "sandbox/", "trace/kernel/", "autograder/")
FIXED_DATE = (2026, 1, 1, 0, 0, 0)


def _skipped(path: Path) -> bool:
    return "__pycache__" in path.parts or path.as_posix().startswith(BUNDLE_SKIP)


def bundle_bytes(root: Path) -> bytes:
    """The graders and the exercise files, with a fixed date: same sources, same bytes."""
    graders = root / "graders"
    paths = sorted(p for p in graders.rglob("*.py") if not _skipped(p.relative_to(graders)))
    paths += sorted(p for p in (root / "exercises").rglob("*") if p.is_file() and p.suffix in {".py", ".toml", ".md"})
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in paths:
            info = zipfile.ZipInfo(path.relative_to(root).as_posix(), FIXED_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            data = path.read_bytes()
            if path.name == "exercise.toml":  # the reviewers' notes stay out of the site
                try:
                    data = strip_notes(data.decode("utf-8")).encode("utf-8")
                except NoteError as exc:
                    raise BuildError(f"{path}: {exc}") from None
            zf.writestr(info, data)
    return buffer.getvalue()


def write_bundle(root: Path, site: Path) -> None:
    target = site / BUNDLE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(bundle_bytes(root))


# --- 3. Page tags ----------------------------------------------------------------------------

SW_META = re.compile(r'<meta name="lesson-service-worker" content="[a-z]*">')
PYTHON_WORKER = "assets/javascripts/lesson/python-worker.js"
EARLY_PYTHON_MARK = "window.__lessonEarlyWorker"
# Inline and first in <head>: the Python worker starts right after the page's first contentful
# paint (the text before Python's 13 MB on a slow line), without waiting for the parser or the
# theme's scripts. A page that cannot tell (no paint timing, a hidden tab) starts at `load`; a
# visible one whose paint is not reported by then (it may come after `load`) waits one more second.
# With Save-Data or a 2g/3g connection it does not start by itself: the widget starts it when an
# exercise nears the screen (runtime.js adopts this worker; see adoptEarlyWorker and loading.js,
# which reads `__lessonPython`; runtime.js writes Python's state there for theme_on_demand.js).
EARLY_PYTHON = (
    "<script>/* Python boots once the text is painted (runtime.js adopts this worker). */"
    "(function () { var c = navigator.connection || {}, g = window.__lessonPython = {};"
    " g.slow = !!c.saveData || /^(slow-2g|2g|3g)$/.test(c.effectiveType || '');"
    " g.painted = new Promise(function (r) { g.paint = r; });"
    " g.start = function () { if (g.started || !window.Worker) return; g.started = true; try {"
    " var w = " + EARLY_PYTHON_MARK + " = new Worker(new URL(%s, document.baseURI), {type: 'module'});"
    " w.addEventListener('error', function () { w.failedEarly = true; }, {once: true});"
    " } catch (e) {} };"
    " var done = false; function painted() { if (done) return; done = true; g.paint(); if (!g.slow) g.start(); }"
    " var timing = !!(window.PerformanceObserver && (PerformanceObserver.supportedEntryTypes || []).indexOf('paint') >= 0);"
    " function seen() { return performance.getEntriesByName('first-contentful-paint').length > 0; }"
    " if (timing) new PerformanceObserver(function () { if (seen()) painted(); }).observe({type: 'paint', buffered: true});"
    " addEventListener('load', function () { if (!timing || document.visibilityState !== 'visible') painted();"
    " else setTimeout(painted, 1000); }); })();</script>"
)
CHARSET = '<meta charset="utf-8">'
HERE = Path(__file__).resolve().parent
# The theme's script closes <body> without `defer`: the browser may not paint the text before it
# has run. Deferred, it still runs before the page's module scripts (same document order). On pages
# with exercises it comes only when the reader reaches for the search (theme_on_demand.js): its mount
# is a 0.6-1.1 s task on a phone's main thread, and everything else it did there is built final.
THEME_SCRIPT = re.compile(r'<script( defer)? src="([^"]*assets/javascripts/bundle\.[0-9a-f]+\.min\.js)"></script>')
THEME_ON_DEMAND_MARK = "window.__lessonTheme"
# Right after the theme's own palette script (which applies only a stored palette), ours paints a
# first visit with the palette the theme will choose, and runs the toggle until the theme's script
# has loaded (palette_first_paint.js).
THEME_PALETTE = re.compile(r'<script>var palette=__md_get\("__palette"\);.*?</script>')
PALETTE_MARK = "/* The theme applies the palette"
EXERCISE_SECTION = '<section class="exercise"'
# Code blocks and rows of tab names may scroll sideways on some screen and with some fonts, and
# what scrolls must take the keyboard (WCAG 2.1.1; axe: scrollable-region-focusable). Whether one
# overflows depends on the reader's machine, so each is focusable in the built page itself: no
# script, font or timing can leave one out (a11y.js keeps it so after the theme's script).
SCROLLING_REGION = re.compile(
    r'(<pre\b[^>]*>(?:<span></span>)?<code\b|<div class="tabbed-labels\b[^"]*")(?![^>]*\btabindex=)'
)
FOCUSABLE = ' tabindex="0"'
# The theme's script wraps every plain table in a scrolling box when it mounts, which moves the text
# below by the box's margins: the build wraps them the same way, so the first paint is the final
# form (a box the script adds inside ours is flattened by lesson.css).
PLAIN_TABLE = re.compile(r"<table>(.*?)</table>", re.S)
TABLE_BOX = ('<div class="md-typeset__scrollwrap" tabindex="0"><div class="md-typeset__table"><table>{}</table>'
             '</div></div>')
TABLE_BOXED = 'class="md-typeset__table"><table>'
# The page's entry module, fetched as early (a modulepreload) but run from an inline script at
# DOMContentLoaded rather than as a deferred <script type="module">. With a module script pending at
# the end of <body>, Chromium styled and laid out the part of the lesson parsed after the first paint
# inside one task (300-600 ms on a 4x slower phone, the page's longest task); loaded this way, as
# with no script at all, it does not (tests/benchmarks/README.md, "The phone's longest task").
LESSON_MODULE = re.compile(r'<script\b(?=[^>]*\btype="module")[^>]*\bsrc="([^"]*assets/javascripts/lesson/main\.js)"[^>]*>'
                           r'</script>')
LESSON_LOADER = ('<link rel="modulepreload" href="{url}">'
                 '<script>addEventListener("DOMContentLoaded", function () {{'
                 ' import(new URL({js_url}, document.baseURI).href); }});</script>')
SEARCH_DIALOG = re.compile(r'(<div class="md-search"[^>]*\brole="dialog")(?![^>]*\baria-label=)([^>]*)>')


def inline_script(name: str) -> str:
    return "<script>" + (HERE / name).read_text(encoding="utf-8").strip() + "</script>"


def theme_on_demand(bundle_url: str) -> str:
    return inline_script("theme_on_demand.js").replace("%s", json.dumps(bundle_url), 1)


def pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if not p.relative_to(site).as_posix().startswith(PYODIDE_DIR + "/"))


def relative_url(target: str, page_rel: str) -> str:
    """`target` (site-relative) as linked from the page stored at `page_rel`."""
    return posixpath.relpath(target, posixpath.dirname(page_rel) or ".")


def tag_page(html: str, page_rel: str, service_worker: bool) -> str:
    tag = f'<meta name="lesson-service-worker" content="{"on" if service_worker else "off"}">'
    if SW_META.search(html):
        html = SW_META.sub(tag, html, count=1)
    elif "</head>" in html:
        html = html.replace("</head>", tag + "\n</head>", 1)
    html = SCROLLING_REGION.sub(lambda m: m.group(1) + FOCUSABLE, html)
    html = PLAIN_TABLE.sub(lambda m: m.group(0) if html[max(0, m.start() - len(TABLE_BOXED) + 7):m.start() + 7]
                           == TABLE_BOXED else TABLE_BOX.format(m.group(1)), html)
    html = render_code_notes(html)
    html = add_copy_buttons(html)
    html = build_export_areas(html)
    # The search is shown from the first paint (lesson.css), before the theme's script names its
    # dialog (a11y.js): named here (axe: aria-dialog-name).
    html = SEARCH_DIALOG.sub(r'\1\2 aria-label="Busca no site">', html)
    exercises = EXERCISE_SECTION in html
    theme = THEME_SCRIPT.search(html)
    if theme and not theme.group(1):  # as the builder wrote it
        tag = theme_on_demand(theme.group(2)) if exercises else f'<script defer src="{theme.group(2)}"></script>'
        html = html[:theme.start()] + tag + html[theme.end():]
    html = LESSON_MODULE.sub(lambda m: LESSON_LOADER.format(url=m.group(1), js_url=json.dumps(m.group(1))), html, count=1)
    if PALETTE_MARK not in html:
        html = THEME_PALETTE.sub(lambda m: m.group(0) + inline_script("palette_first_paint.js"), html, count=1)
    if exercises and EARLY_PYTHON_MARK not in html:
        script = EARLY_PYTHON % json.dumps(relative_url(PYTHON_WORKER, page_rel))
        if CHARSET in html:
            html = html.replace(CHARSET, CHARSET + "\n" + script, 1)
        else:
            html = html.replace("</head>", script + "\n</head>", 1)
    return html


def tag_pages(site: Path, service_worker: bool) -> None:
    for page in pages(site):
        source = page.read_text(encoding="utf-8")
        tagged = tag_page(source, page.relative_to(site).as_posix(), service_worker)
        if tagged != source:
            page.write_text(tagged, encoding="utf-8")


# --- 4. The service worker's build info --------------------------------------------------------

WORKER = "sw.js"
PLACEHOLDER = "/*BUILD*/ null"
BUILD_LINE = re.compile(r"^const BUILD = (.*);$", re.M)
# Fetched on demand, not on the first visit: Pyodide (13 MB, cached once a page starts Python),
# search languages and source maps.
NOT_PRECACHED = (PYODIDE_DIR + "/", "assets/javascripts/lunr/")


def precache_list(site: Path) -> list[Path]:
    files = []
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site).as_posix()
        if not path.is_file() or rel == WORKER or rel.endswith(".map") or rel.startswith(NOT_PRECACHED):
            continue
        files.append(path)
    return files


def url_of(rel: str) -> str:
    """The address a page is asked for: directory URLs, as both builders link them."""
    if rel == "index.html":
        return ""
    return rel[: -len("index.html")] if rel.endswith("/index.html") else rel


def fingerprint(site: Path, files: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(site).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def vendored_pyodide_version(site: Path) -> str:
    """The version the vendored pyodide.mjs exports (what the page's worker reads as `version`)."""
    text = (site / PYODIDE_DIR / "pyodide.mjs").read_text(encoding="utf-8")
    exported = re.search(r"export\{[^}]*?(?<![\w$])([\w$]+) as version\b", text)
    name = exported and exported.group(1)
    for _ in range(4):  # the minifier may alias it: `var Y="314.0.7"; ... U=Y`
        value = name and re.search(r"(?<![\w$.])" + re.escape(name) + r'=("[^"]+"|[\w$]+)[,;]', text)
        if not value:
            break
        if value.group(1).startswith('"'):
            return value.group(1).strip('"')
        name = value.group(1)
    raise BuildError("pyodide.mjs não exporta `version` como esperado: confira snapshot_key em sitebuild/finish.py.")


def snapshot_key(site: Path) -> str:
    """The key of the Python memory snapshot this build's pages keep (snapshot-store.js, snapshotKey):
    the service worker of a new build deletes one stored under another key."""
    graders = hashlib.sha256((site / BUNDLE).read_bytes()).hexdigest()
    return f"pyodide {vendored_pyodide_version(site)}; graders {graders}"


def build_info(site: Path, on: bool) -> dict:
    if not on:
        return {"off": True}
    files = precache_list(site)
    pyodide = sorted((site / PYODIDE_DIR).glob("*"))
    return {
        "version": fingerprint(site, files),
        "pyodide": fingerprint(site, pyodide),
        "pyodideFiles": [p.name for p in pyodide],
        "snapshotKey": snapshot_key(site),
        "precache": [url_of(p.relative_to(site).as_posix()) for p in files],
    }


def worker_build(site: Path) -> dict | None:
    """The build info `sw.js` carries (None while it is still the placeholder)."""
    worker = site / WORKER
    match = BUILD_LINE.search(worker.read_text(encoding="utf-8")) if worker.is_file() else None
    if match is None:
        raise BuildError(f"{WORKER} sem a linha `const BUILD = {PLACEHOLDER};`: o service worker não pode ser versionado.")
    value = match.group(1)
    return None if value == PLACEHOLDER else json.loads(value)


def write_worker(site: Path, service_worker: bool) -> dict:
    worker_build(site)  # the line is there
    info = build_info(site, service_worker)
    worker = site / WORKER
    line = "const BUILD = " + json.dumps(info, ensure_ascii=False, separators=(",", ":")) + ";"
    worker.write_text(BUILD_LINE.sub(lambda _: line, worker.read_text(encoding="utf-8"), count=1), encoding="utf-8")
    return info


# --- 5. Checks -------------------------------------------------------------------------------

FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})exercise[ \t]*\n(?P<id>[^\n]*)\n(?P=fence)[ \t]*$", re.M)
RENDERED = re.compile(r'<section class="exercise" data-exercise="([^"]*)"')
# Links the reader clicks (the sources) may leave; nothing a page *loads* may.
# rel=canonical names the page's public address; it loads nothing.
FOREIGN_LOAD = re.compile(
    r'<(?:script|link(?![^>]*rel="canonical")|img|iframe|source)\b[^>]*\b(?:src|href)="(https?:)?//', re.I
)


def exercises_in_sources(docs: Path) -> list[str]:
    return sorted(m.group("id").strip() for md in docs.rglob("*.md") for m in FENCE.finditer(md.read_text(encoding="utf-8")))


def exercises_in_site(site: Path) -> list[str]:
    return sorted(i for page in pages(site) for i in RENDERED.findall(page.read_text(encoding="utf-8")))


def check(root: Path, site: Path, service_worker: bool) -> None:
    problems = []
    expected, rendered = exercises_in_sources(root / "docs"), exercises_in_site(site)
    if expected != rendered:
        problems.append(
            f"os blocos `exercise` das páginas ({', '.join(expected) or 'nenhum'}) não viraram exercícios no site "
            f"({', '.join(rendered) or 'nenhum'}): o construtor não carregou o formatador do mkdocs.yml"
        )
    package_dir = installed_pyodide(root)
    for name in PYODIDE_FILES:
        shipped = site / PYODIDE_DIR / name
        if not shipped.is_file() or shipped.read_bytes() != (package_dir / name).read_bytes():
            problems.append(f"{PYODIDE_DIR}/{name} ausente ou diferente do node_modules")
    if not (site / BUNDLE).is_file():
        problems.append(f"{BUNDLE} ausente")
    info = worker_build(site)
    if info is None or info != build_info(site, service_worker):
        problems.append(f"{WORKER} sem a impressão digital deste build")
    state = "on" if service_worker else "off"
    for page in pages(site):
        rel = page.relative_to(site).as_posix()
        html = page.read_text(encoding="utf-8")
        if f'<meta name="lesson-service-worker" content="{state}">' not in html:
            problems.append(f"{rel} sem a marca do service worker")
        exercises = EXERCISE_SECTION in html
        theme = THEME_SCRIPT.search(html)
        if theme and not theme.group(1):
            problems.append(f"{rel} carrega o script do tema sem defer")
        if exercises and (theme or THEME_ON_DEMAND_MARK not in html):
            problems.append(f"{rel} tem exercícios, mas carrega o script do tema antes de o leitor buscar")
        if THEME_PALETTE.search(html) and PALETTE_MARK not in html:
            problems.append(f"{rel} pinta a primeira visita com a paleta errada (falta palette_first_paint.js)")
        if exercises and EARLY_PYTHON_MARK not in html:
            problems.append(f"{rel} tem exercícios, mas não inicia o Python no <head>")
        if LESSON_MODULE.search(html):
            problems.append(f"{rel} carrega main.js como script de módulo adiado, não em DOMContentLoaded")
        unfocusable = SCROLLING_REGION.search(html)
        if unfocusable:
            problems.append(f"{rel} tem um bloco que rola de lado sem foco de teclado: {unfocusable.group(0)[:60]}")
        match = FOREIGN_LOAD.search(html)
        if match:
            problems.append(f"{rel} carrega algo de outra origem: {match.group(0)}")
    published = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.py"))
    if published:
        problems.append(f"código Python publicado como arquivo do site: {', '.join(published)}")
    if problems:
        raise BuildError("O site construído não está completo:\n- " + "\n- ".join(problems))


# --- The step --------------------------------------------------------------------------------


@dataclass
class Finished:
    pages: int
    exercises: list[str]
    pyodide: str
    worker: dict

    def summary(self, site: Path) -> str:
        sw = f"service worker {self.worker['version']}" if "version" in self.worker else "service worker desligado"
        return (f"{site}: {self.pages} páginas, {len(self.exercises)} exercícios, "
                f"Pyodide {self.pyodide}, {sw}; verificado.")


def finish(site: Path, *, service_worker: bool, root: Path = ROOT) -> Finished:
    """Complete and check the builder's output in `site` (idempotent)."""
    site, root = Path(site), Path(root)
    if not (site / "index.html").is_file():
        raise BuildError(f"{site} não tem index.html: rode o construtor (mkdocs ou zensical) antes.")
    vendor_pyodide(root, site)
    write_bundle(root, site)
    tag_pages(site, service_worker)
    sprite_stylesheets(site, sorted(site.glob("assets/stylesheets/*.css")))
    narrow_tab_selectors(sorted(site.glob("assets/stylesheets/*.css")))
    worker = write_worker(site, service_worker)  # last: it hashes everything above
    check(root, site, service_worker)
    return Finished(len(pages(site)), exercises_in_site(site), pinned_pyodide(root), worker)


# --- mkdocs.yml: extra.service_worker ----------------------------------------------------------

OFF_VALUES = {"0", "false", "no", "off", "nao", "não"}


def switched_on(value) -> bool:
    return str(value).strip().lower() not in OFF_VALUES


def service_worker_setting(config_file: Path) -> bool:
    """`extra.service_worker` of mkdocs.yml as either builder reads it (with `!ENV`)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    def env(loader, node):
        if isinstance(node, yaml.ScalarNode):
            names, default = [loader.construct_scalar(node)], None
        else:
            items = node.value
            names = [loader.construct_scalar(n) for n in items[:-1]] if len(items) > 1 else [loader.construct_scalar(items[0])]
            default = loader.construct_object(items[-1]) if len(items) > 1 else None
        for name in names:
            if name in os.environ:
                value = os.environ[name]
                tag = loader.resolve(yaml.ScalarNode, value, (True, False))
                return loader.construct_object(yaml.ScalarNode(tag, value))
        return default

    Loader.add_constructor("!ENV", env)
    # `!!python/name:` (the fence's formatter) names code this step does not need.
    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    config = yaml.load(Path(config_file).read_text(encoding="utf-8"), Loader=Loader) or {}
    return switched_on((config.get("extra") or {}).get("service_worker", True))
