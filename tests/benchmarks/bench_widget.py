"""Benchmark (not a test): the exercise widget in headless Chromium, from a fresh build.

    python tests/benchmarks/bench_widget.py

Reports the median time from page load to the first verdict of `nivel-2` (cold: Pyodide
starts in a new browser context), the median of a "Verificar" once Pyodide is warm,
and the weight of the lesson page without Pyodide. Timings are noisy: read medians.
"""

from __future__ import annotations

import functools
import http.server
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from conftest import CHROMIUM, CHROMIUM_ARGS, _QuietHandler  # noqa: E402

VERDICT = "document.querySelector(\"section[data-exercise='nivel-2'] .exercise-summary\").textContent.length > 0"


def serve(directory):
    handler = functools.partial(_QuietHandler, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def verify(page):
    page.evaluate("document.querySelector(\"section[data-exercise='nivel-2'] .exercise-summary\").textContent = ''")
    start = time.perf_counter()
    page.locator("section[data-exercise='nivel-2']").get_by_role("button", name="Verificar").click()
    page.wait_for_function(VERDICT, timeout=120_000)
    return time.perf_counter() - start


def main():
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as site:
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "--site-dir", site],
                       cwd=ROOT, check=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
        server = serve(site)
        url = f"http://127.0.0.1:{server.server_address[1]}/licao-2/"
        cold, warm, weight = [], [], 0
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for attempt in range(3):
                context = browser.new_context()
                page = context.new_page()
                sizes = {}
                page.on("response", lambda r: sizes.__setitem__(r.url, len(r.body()) if r.ok else 0))
                start = time.perf_counter()
                page.goto(url)
                page.locator("section[data-exercise='nivel-2']").get_by_role("button", name="Verificar").click()
                page.wait_for_function(VERDICT, timeout=120_000)
                cold.append(time.perf_counter() - start)
                if attempt == 0:
                    page.wait_for_load_state("networkidle")
                    weight = sum(size for u, size in sizes.items() if "/pyodide/" not in u)
                    warm = [verify(page) for _ in range(7)]
                context.close()
            browser.close()
        server.shutdown()
    print(f"primeiro veredito, a frio (Pyodide incluído): mediana {statistics.median(cold):.1f} s em {len(cold)} tentativas")
    print(f"'Verificar' com o Python já carregado: mediana {statistics.median(warm) * 1000:.0f} ms em {len(warm)} tentativas")
    print(f"peso da página da lição sem o Pyodide: {weight / 1024:.0f} KiB (sem compressão)")


if __name__ == "__main__":
    main()
