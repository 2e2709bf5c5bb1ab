"""MkDocs hook: version the site's service worker (docs/sw.js) by the build and list what it precaches.

`sw.js` gets the build's fingerprint and file list; every page gets a meta tag saying whether the
service worker is on. `SERVICE_WORKER=0` at build time (or `mkdocs serve`) ships an off switch instead.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from mkdocs.exceptions import PluginError

PLACEHOLDER = "/*BUILD*/ null"
WORKER = "sw.js"
# Fetched on demand, not on the first visit: Pyodide (13 MB, cached once a page starts Python),
# search languages and source maps.
NOT_PRECACHED = ("pyodide/", "assets/javascripts/lunr/")
OFF_VALUES = {"0", "false", "no", "off", "nao", "não"}

_serving = False


def on_startup(command, dirty):
    global _serving
    # Under `mkdocs serve` pages change at every save; a cache would only get in the way.
    _serving = command == "serve"


def enabled(config) -> bool:
    value = config.extra.get("service_worker", True)
    return not _serving and str(value).strip().lower() not in OFF_VALUES


def _tag(output: str, config) -> str:
    tag = f'<meta name="lesson-service-worker" content="{"on" if enabled(config) else "off"}">'
    return output.replace("</head>", tag + "\n</head>", 1)


def on_post_page(output: str, page, config) -> str:
    return _tag(output, config)


def on_post_template(output: str, template_name: str, config) -> str:
    # 404.html is a theme template, not a page.
    return _tag(output, config) if template_name.endswith(".html") else output


def precache_list(site: Path) -> list[Path]:
    files = []
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site).as_posix()
        if not path.is_file() or rel == WORKER or rel.endswith(".map") or rel.startswith(NOT_PRECACHED):
            continue
        files.append(path)
    return files


def url_of(rel: str) -> str:
    """The address a page is asked for: directory URLs, as mkdocs links them."""
    if rel == "index.html":
        return ""
    return rel[: -len("index.html")] if rel.endswith("/index.html") else rel


def fingerprint(site: Path, files: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(site).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def build_info(site: Path, on: bool) -> dict:
    if not on:
        return {"off": True}
    files = precache_list(site)
    pyodide = sorted((site / "pyodide").glob("*"))
    return {
        "version": fingerprint(site, files),
        "pyodide": fingerprint(site, pyodide),
        "pyodideFiles": [p.name for p in pyodide],
        "precache": [url_of(p.relative_to(site).as_posix()) for p in files],
    }


def on_post_build(config):
    site = Path(config.site_dir)
    worker = site / WORKER
    source = worker.read_text(encoding="utf-8") if worker.is_file() else ""
    if PLACEHOLDER not in source:
        raise PluginError(f"{WORKER} sem o marcador {PLACEHOLDER!r}: o service worker não pode ser versionado.")
    info = json.dumps(build_info(site, enabled(config)), ensure_ascii=False, separators=(",", ":"))
    worker.write_text(source.replace(PLACEHOLDER, info, 1), encoding="utf-8")
