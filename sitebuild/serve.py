"""`make serve BUILDER=zensical`: build with a builder, finish, serve, and rebuild when a source changes.

Zensical's own `zensical serve` cannot serve this site yet: it sends `pyodide.asm.wasm` as
`application/octet-stream`, and the browser then refuses to compile Python (Pyodide streams the
WebAssembly and wants `application/wasm`); and it knows nothing of the post-build step. So the
project is built in a staging copy (never into `site/`, which may be the folder you publish),
finished with the service worker off, and served by Python's `http.server`, which sends the right
types. There is no live reload: after saving, reload the page.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from sitebuild import finish as step

# What a build reads, besides node_modules/ (linked, never copied).
PROJECT_FILES = ("mkdocs.yml", "package-lock.json")
PROJECT_DIRS = ("docs", "overrides", "exercises", "graders", "sitebuild")
WATCHED = PROJECT_FILES + PROJECT_DIRS


class QuietServer(http.server.ThreadingHTTPServer):
    """A threaded static server that says nothing when the browser drops a download it no longer
    needs (a Python worker replaced mid-fetch resets its connection): no error of the site's."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


def builder_command(builder: str, site: Path) -> list[str]:
    """The builder's strict build into `site`; Zensical always builds into the project's own site/."""
    bindir = Path(sys.executable).parent
    if builder == "mkdocs":
        return [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)]
    if builder == "zensical":
        # --clean: no page from the cache of an earlier build (the exercise fence reads exercises/ on its own).
        return [str(bindir / "zensical"), "build", "--strict", "--clean"]
    raise ValueError(f"construtor desconhecido: {builder!r} (use mkdocs ou zensical)")


def stage(root: Path, dest: Path) -> Path:
    """A copy of the project in `dest` that a builder can build on its own (node_modules linked)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        shutil.copy2(root / name, dest / name)
    for name in PROJECT_DIRS:
        if (dest / name).exists():
            shutil.rmtree(dest / name)
        shutil.copytree(root / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    if not (dest / "node_modules").exists():
        (dest / "node_modules").symlink_to((root / "node_modules").resolve())
    return dest


def build(builder: str, project: Path, *, service_worker: bool, env=None) -> tuple[Path, str]:
    """Build `project` with `builder`, then run the post-build step; (site dir, builder's output).

    Raises BuildError with the builder's own output when it fails."""
    site = project / "site"
    proc = subprocess.run(builder_command(builder, site), cwd=project, env=env, capture_output=True, text=True)
    output = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise step.BuildError(f"{builder} build falhou:\n{output}")
    step.finish(site, service_worker=service_worker, root=project)
    return site, output


def _snapshot(root: Path) -> dict:
    seen = {}
    for name in WATCHED:
        path = root / name
        for file in [path] if path.is_file() else path.rglob("*"):
            if file.is_file() and "__pycache__" not in file.parts:
                seen[file] = file.stat().st_mtime_ns
    return seen


class _Handler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        # Each reload shows the last build, not the browser's copy.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, *args):
        pass


def serve(builder: str, root: Path, host: str, port: int, poll_s: float = 0.5) -> None:
    # Stopped by a service manager or `kill` as by Ctrl+C: the staging copy is removed either way.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with tempfile.TemporaryDirectory(prefix="licao-serve-") as tmp:
        project = Path(tmp) / "project"
        site = project / "site"

        def rebuild() -> None:
            started = time.monotonic()
            try:
                stage(root, project)
                build(builder, project, service_worker=False)
            except step.BuildError as exc:
                print(exc, file=sys.stderr, flush=True)
                return
            print(f"{builder}: site reconstruído em {time.monotonic() - started:.1f} s", flush=True)

        rebuild()
        handler = functools.partial(_Handler, directory=str(site))
        server = QuietServer((host, port), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        print(f"Servindo o site ({builder}) em http://{host}:{port}/ — depois de salvar, recarregue a página. "
              "Ctrl+C para parar.", flush=True)
        seen = _snapshot(root)
        try:
            while True:
                time.sleep(poll_s)
                now = _snapshot(root)
                if now != seen:
                    seen = now
                    rebuild()
        except KeyboardInterrupt:
            pass
        finally:
            server.shutdown()
            server.server_close()
