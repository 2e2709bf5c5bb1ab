"""The site's service worker in a real Chromium, on a plain static server (no special headers):
cross-origin isolation, offline revisits, a new build replacing the old one, the off switch."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, _serve
from test_browser_site import Recorder
from test_browser_widget import RIGHT_DIAGNOSIS, SOLUTION, STOPPED, choose, set_code, verify, verify_then_stop, widget

pytestmark = pytest.mark.browser

ALL_PASS = "Todas as verificações passaram."
INFINITE = "def run_agent(task, tools, call_model, execute_tool):\n    while True:\n        pass\n"
CONTROLLED = "navigator.serviceWorker.controller !== null"
# Python's five core files are in the service worker's cache.
PYTHON_KEPT = ("async () => { for (const n of await caches.keys()) if (n.includes(':pyodide:'))"
               " return (await (await caches.open(n)).keys()).length === 5; return false; }")
OUR_CACHES = "caches.keys().then(names => names.filter(n => n.startsWith('licao:')).sort())"


def wait_until(page, script: str, arg=None, timeout_s: float = 30):
    """Poll an async page script until it yields a truthy value (wait_for_function does not await promises)."""
    import time

    deadline = time.monotonic() + timeout_s
    while True:
        value = page.evaluate(script, arg)
        if value:
            return value
        assert time.monotonic() < deadline, f"never true: {script}"
        page.wait_for_timeout(200)


class Host:
    """A plain `http.server` for one folder, which can go down (the site's origin then fails)."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.server = _serve(directory)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/"

    def down(self):
        if self.server:
            self.server.shutdown()
            self.server.server_close()
            self.server = None


@pytest.fixture
def host(site_dir, tmp_path):
    served = tmp_path / "site"
    shutil.copytree(site_dir, served)
    h = Host(served)
    yield h
    h.down()


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    yield ctx
    ctx.close()


def first_visit(context, url):
    """Load the lesson and wait until the service worker controls it and Python is up (and cached)."""
    page = context.new_page()
    page.goto(url + "licao-2/")
    page.wait_for_function(CONTROLLED, timeout=20_000)
    widget(page, "nivel-2").locator(".exercise-status").filter(has_text="Python pronto").wait_for(timeout=60_000)
    wait_until(page, PYTHON_KEPT)
    return page


def rebuild(target: Path, tmp_path: Path, *, marker: str = "", env: dict | None = None):
    """A real new build of the site (optionally with a marker paragraph on the home) into `target`."""
    project = tmp_path / "project"
    if project.exists():
        shutil.rmtree(project)
    project.mkdir()
    for name in ("mkdocs.yml", "package-lock.json"):
        shutil.copy(ROOT / name, project / name)
    for name in ("docs", "overrides", "exercises", "graders", "sitebuild"):
        shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    (project / "node_modules").symlink_to(ROOT / "node_modules")
    if marker:
        home = project / "docs" / "index.md"
        home.write_text(home.read_text(encoding="utf-8") + f"\n\n{marker}\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(target)],
        cwd=project, env={**(os.environ if env is None else env), "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_first_visit_to_the_home_neither_reloads_nor_downloads_python(context, host):
    recorder = Recorder(context)
    page = context.new_page()
    loads = []
    page.on("load", lambda: loads.append(page.url))
    page.goto(host.url)
    page.wait_for_function(CONTROLLED, timeout=20_000)
    page.wait_for_timeout(1500)
    assert loads == [host.url], f"automatic reloads: {loads}"
    assert not [u for u in recorder.requests if "/pyodide/" in u], "the home made the student download Python"
    cached = page.evaluate(OUR_CACHES)
    assert len(cached) == 1 and ":site:" in cached[0], cached
    assert recorder.console_errors == [] and recorder.foreign(host.url) == []


def test_parar_recovers_without_reloading_python_on_a_plain_server(context, host):
    recorder = Recorder(context)
    page = first_visit(context, host.url)
    assert page.evaluate("crossOriginIsolated") is False  # the first load came from the network
    page.reload()
    assert page.evaluate("crossOriginIsolated") is True
    set_code(page, "nivel-2", INFINITE)
    wasm_before = sum(u.endswith("pyodide.asm.wasm") for u in recorder.page_requests)
    assert verify_then_stop(page, "nivel-2") == STOPPED
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    # Interrupted in place: the worker was not rebuilt, so Python was not loaded again.
    assert sum(u.endswith("pyodide.asm.wasm") for u in recorder.page_requests) == wasm_before
    assert recorder.console_errors == []


def test_files_other_than_pages_and_worker_scripts_are_served_as_the_server_sent_them(context, host):
    """Only a document or a worker's script needs the isolation headers. Pyodide's files go out
    untouched: Chromium keeps compiled code only for a response it can trace to Cache Storage or to
    the network, never for one a service worker built (before, pyodide.asm.wasm came rebuilt)."""
    page = first_visit(context, host.url)
    page.reload()
    assert page.evaluate("crossOriginIsolated") is True
    served = page.evaluate("""async () => { const r = await fetch('../pyodide/pyodide.asm.wasm');
        return {coep: r.headers.get('cross-origin-embedder-policy'), corp: r.headers.get('cross-origin-resource-policy'),
                type: r.headers.get('content-type'), size: (await r.arrayBuffer()).byteLength}; }""")
    wasm = host.directory / "pyodide" / "pyodide.asm.wasm"
    assert served == {"coep": None, "corp": None, "type": "application/wasm", "size": wasm.stat().st_size}
    # The isolated page's Python worker (its script still carries the headers) loads them and grades.
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS


def test_offline_revisit_loads_the_lesson_and_grades(context, host):
    first_visit(context, host.url).close()
    host.down()
    page = context.new_page()
    recorder = Recorder(context)
    page.goto(host.url + "licao-2/")
    assert "Checkpoints" in page.locator("h1").inner_text()
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    page.goto(host.url)  # the home too, with its progress
    assert page.locator(".course-progress li").count() >= 1
    assert recorder.console_errors == []


def test_a_new_build_reaches_the_student_and_replaces_the_old_cache(context, host, tmp_path):
    page = context.new_page()
    page.goto(host.url)
    page.wait_for_function(CONTROLLED, timeout=20_000)
    old_caches = page.evaluate(OUR_CACHES)
    page.close()
    marker = "Aviso novo do instrutor: esta versão substitui a anterior."
    rebuild(host.directory, tmp_path, marker=marker)
    # The revisit that finds the new build already shows it (from the network).
    page = context.new_page()
    page.goto(host.url)
    assert marker in page.locator(".md-content").inner_text()
    wait_until(page, "navigator.serviceWorker.getRegistration().then(r => !!r.waiting)")
    page.close()
    # Once the old pages are gone, the new service worker takes over with the new build alone.
    page = context.new_page()
    page.goto(host.url)
    wait_until(
        page,
        "old => caches.keys().then(n => { const ours = n.filter(x => x.startsWith('licao:'));"
        " return ours.length === 1 && !old.includes(ours[0]); })",
        old_caches,
    )
    host.down()
    page.reload()
    assert marker in page.locator(".md-content").inner_text()
    page.goto(host.url + "licao-2/")
    assert page.locator("section.exercise").count() == 3


def test_a_build_with_the_service_worker_off_removes_it(context, host, tmp_path):
    page = context.new_page()
    page.goto(host.url)
    page.wait_for_function(CONTROLLED, timeout=20_000)
    page.close()
    rebuild(host.directory, tmp_path, env={**os.environ, "SERVICE_WORKER": "0"})
    assert '"off":true' in (host.directory / "sw.js").read_text(encoding="utf-8")
    page = context.new_page()
    page.goto(host.url)
    wait_until(
        page,
        "async () => (await navigator.serviceWorker.getRegistrations()).length === 0"
        " && !(await caches.keys()).some(x => x.startsWith('licao:'))",
    )
    assert page.evaluate("navigator.serviceWorker.getRegistrations().then(r => r.length)") == 0
    assert page.evaluate(OUR_CACHES) == []


def test_without_service_workers_the_lesson_works_as_before(browser, host):
    context = browser.new_context(service_workers="block")
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(host.url + "licao-2/")
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    assert page.evaluate("crossOriginIsolated") is False
    assert recorder.console_errors == []
    context.close()


def test_sub_path_host_without_site_url_gets_isolation_and_offline_revisits(browser, tmp_path):
    """An instructor's shared server: the site under /cursos/checkpoints/, built with SITE_URL unset."""
    root = tmp_path / "host"
    target = root / "cursos" / "checkpoints"
    target.parent.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k != "SITE_URL"}
    rebuild(target, tmp_path, env=env)
    host = Host(root)
    url = host.url + "cursos/checkpoints/"
    context = browser.new_context()
    recorder = Recorder(context)
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_function(CONTROLLED, timeout=20_000)
        scope = page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.scope)")
        assert scope == url
        page.goto(url + "licao-2/")
        assert page.evaluate("crossOriginIsolated") is True
        widget(page, "nivel-2").locator(".exercise-status").filter(has_text="Python pronto").wait_for(timeout=60_000)
        wait_until(page, PYTHON_KEPT)
        host.down()
        page.reload()
        choose(page, "nivel-2", RIGHT_DIAGNOSIS)
        set_code(page, "nivel-2", SOLUTION)
        assert verify(page, "nivel-2") == ALL_PASS
        assert all("/cursos/checkpoints/" in u for u in recorder.requests if u.startswith(host.url))
        assert recorder.console_errors == []
    finally:
        context.close()
        host.down()


def test_offline_addresses_without_a_slash_and_unknown_pages(context, host):
    page = context.new_page()
    page.goto(host.url)
    page.wait_for_function(CONTROLLED, timeout=20_000)
    host.down()
    page.goto(host.url + "licao-2")  # as typed, without the final slash
    assert page.url == host.url + "licao-2/"
    assert "Checkpoints" in page.locator("h1").inner_text()
    response = page.goto(host.url + "nao-existe/")
    assert response.status == 404 and "404" in page.locator(".md-content").inner_text()
