"""MkDocs hook: serve the pinned Pyodide runtime from the site itself (no CDN).

The core files of the npm package `pyodide` are added to the build as static
files under `pyodide/`, so `mkdocs build` and `mkdocs serve` both ship them.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.vendor_pyodide")

# What `loadPyodide()` fetches to boot the interpreter with the standard library;
# the graders need nothing more.
CORE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
TARGET_DIR = "pyodide"


def _pinned_version(root: Path) -> str:
    lock = json.loads((root / "package-lock.json").read_text(encoding="utf-8"))
    return lock["packages"]["node_modules/pyodide"]["version"]


def _installed_dir(root: Path) -> Path:
    package_dir = root / "node_modules" / "pyodide"
    manifest = package_dir / "package.json"
    if not manifest.is_file():
        raise PluginError(
            "Pyodide não está instalado em node_modules/. Rode `npm ci` "
            "(ou `make build`, que faz isso sozinho) antes de construir o site."
        )
    installed = json.loads(manifest.read_text(encoding="utf-8"))["version"]
    pinned = _pinned_version(root)
    if installed != pinned:
        raise PluginError(
            f"node_modules/pyodide está na versão {installed}, mas o package-lock.json "
            f"fixa {pinned}. Rode `npm ci` para instalar a versão fixada."
        )
    return package_dir


def on_files(files: Files, config) -> Files:
    root = Path(config.config_file_path).resolve().parent
    package_dir = _installed_dir(root)
    for name in CORE_FILES:
        if not (package_dir / name).is_file():
            raise PluginError(f"Arquivo do Pyodide ausente: node_modules/pyodide/{name}.")
        files.append(
            File(
                name,
                src_dir=str(package_dir),
                dest_dir=config.site_dir,
                use_directory_urls=config.use_directory_urls,
                dest_uri=f"{TARGET_DIR}/{name}",
            )
        )
    log.debug("Pyodide %s vendored into %s/", _pinned_version(root), TARGET_DIR)
    return files
