"""Shared fixtures: one strict build of the site, a local static server, a real Chromium."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from sitebuild.serve import QuietServer

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Flags checked on this machine (see shared NOTES): no sandbox as root, and no
# background traffic; other origins are made to fail fast, and still get recorded.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]


@pytest.fixture(scope="session")
def _root_server(tmp_path_factory):
    """A static server started first, so the build can be told its address (SITE_URL)."""
    site_dir = tmp_path_factory.mktemp("site")
    server = _serve(site_dir)
    yield site_dir, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def finish_site(site_dir: Path, project: Path = ROOT, env: dict | None = None) -> str:
    """The Makefile's post-build step, as `make build` runs it after either builder."""
    proc = subprocess.run(
        [sys.executable, "-m", "sitebuild", "finish", str(site_dir), "--config", str(project / "mkdocs.yml")],
        cwd=project, env=env, capture_output=True, text=True,
    )
    assert proc.returncode == 0, f"python -m sitebuild finish failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


@pytest.fixture(scope="session")
def build(_root_server):
    """Build the site once as `make build` does (MkDocs); return (site_dir, build_log)."""
    site_dir, url = _root_server
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": url}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    return site_dir, proc.stdout + proc.stderr + finish_site(site_dir, env=env)


@pytest.fixture(scope="session")
def zensical_build(tmp_path_factory):
    """The same project built as `make build BUILDER=zensical` does; return (site_dir, build_log).

    Zensical writes only into the project's own site/, so it builds a copy of the project."""
    from sitebuild.serve import stage

    project = stage(ROOT, tmp_path_factory.mktemp("zensical") / "project")
    env = {k: v for k, v in os.environ.items() if k not in {"SITE_URL", "SERVICE_WORKER"}}
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "zensical"), "build", "--strict", "--clean"],
        cwd=project, env=env, capture_output=True, text=True,
    )
    assert proc.returncode == 0, f"zensical build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    return project / "site", proc.stdout + proc.stderr + finish_site(project / "site", project, env)


@pytest.fixture(scope="session")
def zensical_site(zensical_build) -> Path:
    return zensical_build[0]


@pytest.fixture(scope="session")
def site_dir(build) -> Path:
    return build[0]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output readable
        pass


class _IsolatingHandler(_QuietHandler):
    """Sends the headers that make a page cross-origin isolated (SharedArrayBuffer)."""

    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()


def _serve(directory: Path, handler_class=_QuietHandler):
    handler = functools.partial(handler_class, directory=str(directory))
    server = QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


@pytest.fixture(scope="session")
def site_url(build, _root_server):
    """The built site served at the root of a local origin, as `python -m http.server` would."""
    return _root_server[1]


@pytest.fixture(scope="session")
def isolated_site_url(site_dir):
    """The build served with COOP/COEP headers, as an instructor may configure nginx."""
    server = _serve(site_dir, _IsolatingHandler)
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


@pytest.fixture(scope="session")
def subpath_site_url(site_dir, tmp_path_factory):
    """The same build hosted under a sub-path, as an instructor would on a shared server."""
    root = tmp_path_factory.mktemp("host")
    target = root / "cursos" / "checkpoints"
    target.parent.mkdir(parents=True)
    shutil.copytree(site_dir, target)
    server = _serve(root)
    yield f"http://127.0.0.1:{server.server_address[1]}/cursos/checkpoints/"
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    """A real headless Chromium. Missing Chromium is a failure, never a skip."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"Chromium not found at {CHROMIUM}; `make test` installs it (or set CHROMIUM=...).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
