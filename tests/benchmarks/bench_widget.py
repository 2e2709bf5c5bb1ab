"""Benchmark (not a test): the exercise widget in headless Chromium, from a fresh build.

    python tests/benchmarks/bench_widget.py [ROUNDS]
    python tests/benchmarks/bench_widget.py warm [RUNS]   (only the warm "Verificar", in the page)
    python tests/benchmarks/bench_widget.py revisit [ROUNDS] [trace] [profile]   (only (1) and (8) below,
        alternated, with where the revisit's time goes; `trace` also counts Chromium's wasm code-cache
        events; `profile`: each revisit in a fresh profile on disk instead of a fresh context)
    python tests/benchmarks/bench_widget.py memory [ROUNDS]   (the page's memory at rest, before and after
        a Parar: proportional set size of Chromium's processes)

One run builds the site (`mkdocs build --strict`) into a temporary folder, serves it with a plain
static server (no COOP/COEP headers) and runs ROUNDS rounds (default 5); each round alternates:

1. bare Pyodide boot: a minimal page (written into the build as `__bench/bare.html`) boots the
   same vendored `pyodide/pyodide.mjs` in a module worker, as the lesson's Python worker does;
2. cold first verdict: open the lesson and click "Verificar" on `nivel-2` at once;
3. "Verificar" after 10 s idle on a freshly opened lesson (Python starts when the page is idle);
4. "Parar" -> next verdict with the service worker (page controlled and reloaded, so
   cross-origin isolated), then the same context offline (server stopped): does the lesson grade?
5. "Parar" -> next verdict without a service worker (context with service workers blocked), pressed
   during the first check of the visit;
6. "Parar" -> next verdict on a first visit (not cross-origin isolated), at once after the first
   verdict: the worker is replaced by one restored from the page's memory snapshot; timed inside the
   page (performance.now) from the click on Parar to the verdict, the new code put in by the editor's
   own API as soon as "interrompida" shows (no Playwright typing in the figure);
7. the same with `navigator.deviceMemory` reported as 2 (a phone);
8. revisit: a first visit that stores the snapshot (IndexedDB), then a second page load in the same
   context, Verificar at once: its cold first verdict against the bare boot of the same round, and
   against a bare boot revisited with a warm HTTP cache;
9. cold first verdict again with service workers blocked (what the service worker costs a first visit).

Both (1) and (2) also read the page's own main-thread time from Chromium's counters, which
shows what the lesson page adds while Python boots in its worker.
Every measurement uses a fresh browser context (empty HTTP cache). The first round also times
"Verificar" with Python warm (from the harness, and inside the page: the click event to the frame
after the verdict) and weighs the lesson page. Timings are noisy: read medians.
The last line (`JSON: {...}`) holds every figure, for the README.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))
from conftest import CHROMIUM, CHROMIUM_ARGS, _QuietHandler  # noqa: E402
from sitebuild.serve import QuietServer  # noqa: E402
from test_browser_widget import RIGHT_DIAGNOSIS, SOLUTION, choose, set_code, widget  # noqa: E402

ROUNDS = 5
WARM_RUNS = 7
IDLE_S = 10
RUNNING_BEFORE_STOP_MS = 1000
TIMEOUT_MS = 120_000
VIEWPORT = {"width": 1280, "height": 900}
ALL_PASS = "Todas as verificações passaram."
INFINITE = "def run_agent(task, tools, call_model, execute_tool):\n    while True:\n        pass\n"
SUMMARY = "document.querySelector(\"section[data-exercise='nivel-2'] .exercise-summary\")"
VERDICT = f"{SUMMARY}?.textContent.length > 0"
# A grading verdict ("Todas as verificações passaram." / "4 de 6 verificações passaram."), not
# the "Execução interrompida" note that "Parar" leaves, nor a verdict restored from storage.
GRADED = f"(() => {{ const t = {SUMMARY}?.textContent ?? ''; return t.includes('verificações passaram') && !t.includes('última vez'); }})()"
# In-page times around "Parar": the click, the "interrompida" note, the next click on Verificar, its verdict.
MARKS = f"""(() => {{
  const marks = window.benchMarks = {{}};
  const summary = {SUMMARY};
  document.addEventListener("click", (event) => {{
    const label = event.target.closest("button")?.textContent;
    if (label === "Parar") marks.stop ??= performance.now();
    if (label === "Verificar" && marks.stop !== undefined) marks.verify ??= performance.now();
  }}, true);
  new MutationObserver(() => {{
    const text = summary.textContent;
    if (text.includes("interrompida")) marks.stopped ??= performance.now();
    if (text.includes("verificações passaram")) marks.verdict ??= performance.now();
  }}).observe(summary, {{ childList: true, characterData: true, subtree: true }});
}})()"""
CONTROLLED = "navigator.serviceWorker.controller !== null"
GOALS = {"ratio": 1.15, "idle_s": 0.5, "stop_with_sw_s": 0.5, "stop_first_visit_s": 1.0, "worker_ms": 40,
         "revisit_over_bare": 0.5, "warm_in_page_ms": 100}
LESSON_BASE = "document.baseURI.replace(/licao-2\\/.*$/, '')"
RUNTIME = f"import(new URL('assets/javascripts/lesson/runtime.js', {LESSON_BASE})).then(m => m.sharedRuntime())"
STORED = (f"import(new URL('assets/javascripts/lesson/snapshot-store.js', {LESSON_BASE}))"
          ".then(m => m.readSnapshot()).then(r => r !== null)")
# Inside the page: Parar, then, as soon as "interrompida" shows, the solution put into the editor
# and Verificar pressed; resolves to the page's own times (ms) and how the Python came to be.
STOP_IN_PAGE = """async ([code, timeoutMs]) => {
  const section = document.querySelector("section[data-exercise='nivel-2']");
  const summary = section.querySelector(".exercise-summary");
  const button = (name) => [...section.querySelectorAll("button")].find((b) => b.textContent === name);
  const until = (test) => new Promise((resolve, reject) => {
    if (test()) return resolve(performance.now());
    const timer = setTimeout(() => reject(new Error("tempo esgotado")), timeoutMs);
    const observer = new MutationObserver(() => {
      if (!test()) return;
      observer.disconnect(); clearTimeout(timer); resolve(performance.now());
    });
    observer.observe(summary, { childList: true, characterData: true, subtree: true });
  });
  // CodeMirror's own link from its DOM to the view (EditorView.findFromDOM reads the same).
  const content = section.querySelector(".cm-content");
  const view = (content.cmTile ?? content.cmView)?.root?.view ?? content.cmView?.view;
  const t0 = performance.now();
  button("Parar").click();
  const stopped = await until(() => summary.textContent.includes("interrompida"));
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code } });
  button("Verificar").click();
  const verdict = await until(() => summary.textContent.includes("verificações passaram"));
  const runtime = await import(new URL("assets/javascripts/lesson/runtime.js", document.baseURI.replace(/licao-2\\/.*$/, "")))
    .then((m) => m.sharedRuntime());
  return { stopped_s: (stopped - t0) / 1000, stop_s: (verdict - t0) / 1000, summary: summary.textContent.trim(),
           restored: Boolean(runtime.booted?.restored) };
}"""

# The same loadPyodide call as docs/assets/javascripts/lesson/python-worker.js, nothing else.
BARE_WORKER = """\
import { loadPyodide } from "../pyodide/pyodide.mjs";

const pyodide = await loadPyodide({
  indexURL: new URL("../pyodide/", import.meta.url).href,
  stdout: () => {},
  stderr: () => {},
});
pyodide.runPython("1 + 1");
self.postMessage("ready");
"""
BARE_PAGE = """\
<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>Pyodide puro</title></head>
<body><p>Pyodide puro num worker de módulo (bench_widget.py).</p>
<script type="module">
const worker = new Worker(new URL("bare-worker.js", import.meta.url), { type: "module" });
worker.onmessage = () => { window.benchReady = performance.now(); };
worker.onerror = (event) => { window.benchError = event.message || "erro no worker"; };
</script></body></html>
"""


def serve(directory):
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def stop_serving(server):
    server.shutdown()
    server.server_close()


@contextlib.contextmanager
def served_lesson():
    """The lesson built into a temporary folder and served: yields (its folder, its base URL)."""
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        build(site)
        server, base = serve(site)
        try:
            yield site, base
        finally:
            stop_serving(server)


def build(site: Path):
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "--site-dir", str(site)],
                   cwd=ROOT, check=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    bench = site / "__bench"
    bench.mkdir()
    (bench / "bare.html").write_text(BARE_PAGE, encoding="utf-8")
    (bench / "bare-worker.js").write_text(BARE_WORKER, encoding="utf-8")


def python_ready(page):
    widget(page, "nivel-2").locator(".exercise-status").filter(has_text="Python pronto").wait_for(timeout=TIMEOUT_MS)


def verify_button(page):
    # widget() brings the exercise near the screen, as the student scrolls to it (it mounts there).
    return widget(page, "nivel-2").get_by_role("button", name="Verificar")


def timed_verify(page) -> float:
    page.evaluate(f"{SUMMARY}.textContent = ''")
    start = time.perf_counter()
    verify_button(page).click()
    page.wait_for_function(VERDICT, timeout=TIMEOUT_MS)
    return time.perf_counter() - start


# Warm "Verificar" inside the page: from the click event to the frame after the verdict is in the
# DOM (a requestAnimationFrame callback runs just before that frame's style, layout and paint;
# the next one, after it was painted). What the student waits for, without the harness's round trips.
IN_PAGE_VERIFY = f"""() => new Promise((resolve) => {{
  const summary = {SUMMARY};
  summary.textContent = '';
  let clicked;
  const onClick = (event) => {{ if (event.target.closest('button')?.textContent === 'Verificar') clicked = performance.now(); }};
  document.addEventListener('click', onClick, true);
  const observer = new MutationObserver(() => {{
    if (!summary.textContent.includes('verificações passaram')) return;
    observer.disconnect();
    document.removeEventListener('click', onClick, true);
    requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - clicked)));
  }});
  observer.observe(summary, {{ childList: true, characterData: true, subtree: true }});
  verifyButton().click();
}})"""


def in_page_verify(page) -> float:
    """One warm "Verificar", click to the painted verdict, in ms measured by the page itself."""
    page.evaluate("window.verifyButton = () => [...document.querySelectorAll(\"section[data-exercise='nivel-2'] "
                  "button\")].find(b => b.textContent === 'Verificar')")
    return page.evaluate(IN_PAGE_VERIFY)


WORKER_RUNS = 20


def worker_verify(page, base) -> list[float]:
    """Warm "Verificar" of the reference solution in the page's worker, without the widget around it:
    the request to the shared runtime (the same module the page uses) and its reply, in ms."""
    solution = (ROOT / "exercises" / "nivel-2" / "solution.py").read_text(encoding="utf-8")
    return page.evaluate(
        """async ([url, code, runs]) => {
            const { sharedRuntime } = await import(url);
            const runtime = sharedRuntime();
            const times = [];
            for (let i = 0; i < runs; i++) {
              const t0 = performance.now();
              const reply = await runtime.call({ action: "grade", exercise: "nivel-2", code, answers: null });
              times.push(performance.now() - t0);
              if (!reply.ok) throw new Error(JSON.stringify(reply));
            }
            return times;
        }""",
        [base + "assets/javascripts/lesson/runtime.js", solution, WORKER_RUNS])


# --- scenarios (each in a fresh browser context) ---------------------------------------------


def watch_python_start(context, start: list[float]) -> list[float]:
    """Seconds from `start[0]` to the first request for pyodide.mjs (when the page starts Python)."""
    seen = []
    context.on("request", lambda r: not seen and r.url.endswith("/pyodide/pyodide.mjs")
               and seen.append(time.perf_counter() - start[0]))
    return seen


def watch_main_thread(context, page):
    """The page's own main thread, from Chromium's counters: a function returning its busy seconds
    so far (all tasks, scripts, style + layout). Workers (Python, search) are not counted."""
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")

    def busy() -> dict:
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        return {"task_s": metrics.get("TaskDuration", 0.0), "script_s": metrics.get("ScriptDuration", 0.0),
                "style_layout_s": metrics.get("RecalcStyleDuration", 0.0) + metrics.get("LayoutDuration", 0.0)}
    return busy


def bare_boot(browser, base) -> tuple[float, float | None, dict]:
    context = browser.new_context()
    start = [time.perf_counter()]
    python_start = watch_python_start(context, start)
    page = context.new_page()
    main_thread = watch_main_thread(context, page)
    start[0] = time.perf_counter()
    page.goto(base + "__bench/bare.html")
    page.wait_for_function("window.benchReady !== undefined || window.benchError !== undefined", timeout=TIMEOUT_MS)
    elapsed = time.perf_counter() - start[0]
    error = page.evaluate("window.benchError")
    busy = main_thread()
    context.close()
    if error:
        raise RuntimeError(f"a página mínima não carregou o Pyodide: {error}")
    return elapsed, next(iter(python_start), None), busy


def cold_verdict(browser, base, site: Path, extras: dict | None = None, *,
                 service_workers: str = "allow") -> tuple[float, float | None, dict]:
    """Open the lesson and click Verificar at once. With `extras`, also weigh the page and time warm runs."""
    context = browser.new_context(viewport=VIEWPORT, service_workers=service_workers)
    start = [time.perf_counter()]
    python_start = watch_python_start(context, start)
    fetched = set()
    if extras is not None:
        def record(response):
            if response.request.service_worker is None and response.url.startswith(base) and response.status == 200:
                fetched.add(response.url)
        context.on("response", record)
    page = context.new_page()
    main_thread = watch_main_thread(context, page)
    start[0] = time.perf_counter()
    page.goto(base + "licao-2/")
    verify_button(page).click()
    page.wait_for_function(VERDICT, timeout=TIMEOUT_MS)
    elapsed = time.perf_counter() - start[0]
    busy = main_thread()
    if extras is not None:
        page.wait_for_load_state("networkidle")
        extras["warm"] = [timed_verify(page) for _ in range(WARM_RUNS)]
        extras["warm_in_page"] = [in_page_verify(page) for _ in range(WARM_RUNS)]
        extras["worker"] = worker_verify(page, base)
        extras["weight"] = weigh(fetched, base, site)
    context.close()
    return elapsed, next(iter(python_start), None), busy


def idle_verdict(browser, base) -> tuple[float, bool]:
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(base + "licao-2/")
    page.wait_for_timeout(IDLE_S * 1000)
    ready = "Python pronto" in widget(page, "nivel-2").locator(".exercise-status").inner_text()
    elapsed = timed_verify(page)
    context.close()
    return elapsed, ready


def stop_then_verdict(page) -> tuple[float, str]:
    """An endless loop, Parar after ~1 s, then the solution: seconds from Parar to the next verdict."""
    section = widget(page, "nivel-2")
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", INFINITE)
    section.get_by_role("button", name="Verificar").click()
    stop = section.get_by_role("button", name="Parar")
    stop.wait_for(state="visible")
    page.wait_for_timeout(RUNNING_BEFORE_STOP_MS)
    page.evaluate(MARKS)
    start = time.perf_counter()
    stop.click()
    set_code(page, "nivel-2", SOLUTION)
    section.get_by_role("button", name="Verificar").click()  # waits until the button is enabled again
    page.wait_for_function(GRADED, timeout=TIMEOUT_MS)
    elapsed = time.perf_counter() - start
    marks = page.evaluate("window.benchMarks")
    parts = {"stopped_s": span(marks, "stop", "stopped"), "graded_s": span(marks, "verify", "verdict")}
    return elapsed, section.locator(".exercise-summary").inner_text(), parts


def span(marks, first, last):
    return (marks[last] - marks[first]) / 1000 if first in marks and last in marks else None


def with_service_worker(browser, site: Path) -> dict:
    """Parar on a controlled, reloaded (isolated) page; then the server goes down and the lesson is revisited."""
    server, base = serve(site)  # an origin of its own: it goes down below
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.goto(base + "licao-2/")
        page.wait_for_function(CONTROLLED, timeout=20_000)
        python_ready(page)
        page.reload()
        isolated = page.evaluate("crossOriginIsolated")
        if isolated is not True:
            raise AssertionError(f"página controlada e recarregada sem crossOriginIsolated (valor: {isolated!r})")
        python_ready(page)
        stop_s, summary, parts = stop_then_verdict(page)
        page.close()
        stop_serving(server)
        server = None
        offline = offline_revisit(context, base)
    finally:
        context.close()
        if server:
            stop_serving(server)
    return {"stop_s": stop_s, "summary": summary, "isolated": isolated, **parts, **offline}


def offline_revisit(context, base) -> dict:
    page = context.new_page()
    start = time.perf_counter()
    try:
        page.goto(base + "licao-2/")
        choose(page, "nivel-2", RIGHT_DIAGNOSIS)
        set_code(page, "nivel-2", SOLUTION)
        page.evaluate(f"{SUMMARY}.textContent = ''")
        verify_button(page).click()
        page.wait_for_function(GRADED, timeout=60_000)
        summary = widget(page, "nivel-2").locator(".exercise-summary").inner_text()
        return {"offline_ok": summary == ALL_PASS, "offline_s": time.perf_counter() - start, "offline_note": summary}
    except Exception as error:  # noqa: BLE001 - reported as "não funciona"
        return {"offline_ok": False, "offline_s": None, "offline_note": str(error).splitlines()[0]}


def without_service_worker(browser, base) -> dict:
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    page = context.new_page()
    page.goto(base + "licao-2/")
    python_ready(page)
    isolated = page.evaluate("crossOriginIsolated")
    stop_s, summary, parts = stop_then_verdict(page)
    context.close()
    return {"stop_s": stop_s, "summary": summary, "isolated": isolated, **parts}


def first_visit_stop_at_once(browser, base, device_memory: int | None = None) -> dict:
    """A first visit: one verdict, then at once a loop, Parar (after the loop ran ~1 s) and the
    solution; Parar -> verdict timed inside the page."""
    context = browser.new_context(viewport=VIEWPORT)
    if device_memory is not None:
        context.add_init_script(f"Object.defineProperty(Navigator.prototype, 'deviceMemory', {{get: () => {device_memory}}})")
    page = context.new_page()
    page.goto(base + "licao-2/")
    isolated = page.evaluate("crossOriginIsolated")
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    timed_verify(page)
    set_code(page, "nivel-2", INFINITE)
    widget(page, "nivel-2").get_by_role("button", name="Verificar").click()
    widget(page, "nivel-2").get_by_role("button", name="Parar").wait_for(state="visible")
    page.wait_for_timeout(RUNNING_BEFORE_STOP_MS)
    result = page.evaluate(STOP_IN_PAGE, [SOLUTION, TIMEOUT_MS])
    context.close()
    return {**result, "isolated": isolated}


def visit_until_stored(context, base):
    """A first visit, left open once the page has stored its snapshot for the next one (60 s at most)."""
    page = context.new_page()
    page.goto(base + "licao-2/")
    python_ready(page)
    start = time.perf_counter()
    while not page.evaluate(STORED) and time.perf_counter() - start < 60:
        page.wait_for_timeout(200)
    return page


def revisit_verdict(browser, base) -> dict:
    """A first visit that stores the snapshot, then a revisit: Verificar at once, timed like
    cold_verdict; and the bare boot page loaded twice in one context (its second load, warm cache)."""
    context = browser.new_context(viewport=VIEWPORT)
    visit_until_stored(context, base).close()
    page = context.new_page()
    start = time.perf_counter()
    page.goto(base + "licao-2/")
    verify_button(page).click()
    page.wait_for_function(VERDICT, timeout=TIMEOUT_MS)
    elapsed = time.perf_counter() - start
    stored = page.evaluate(f"{RUNTIME}.then(r => Boolean(r.booted?.stored))")
    page.close()
    context.close()
    context = browser.new_context()
    page = context.new_page()
    warm_bare = None
    for _ in range(2):
        start = time.perf_counter()
        page.goto(base + "__bench/bare.html")
        page.wait_for_function("window.benchReady !== undefined || window.benchError !== undefined", timeout=TIMEOUT_MS)
        warm_bare = time.perf_counter() - start
    context.close()
    return {"revisit_s": elapsed, "from_store": stored, "warm_bare_s": warm_bare}


# --- bytes ------------------------------------------------------------------------------------


def local_file(url: str, base: str, site: Path) -> Path | None:
    rel = unquote(urlsplit(url).path)[len(urlsplit(base).path):]
    path = site / rel
    if rel == "" or rel.endswith("/"):
        path = path / "index.html"
    return path if path.is_file() else None


def sizes(paths) -> dict:
    paths = list(paths)
    raw = sum(p.stat().st_size for p in paths)
    packed = sum(len(gzip.compress(p.read_bytes(), compresslevel=6)) for p in paths)
    return {"files": len(paths), "raw": raw, "gzip": packed}


def weigh(urls, base, site: Path) -> dict:
    """What the lesson page fetched (a static server sends the files as they are on disk)."""
    files = {local_file(u, base, site) for u in urls} - {None}
    pyodide = sorted(p for p in files if p.is_relative_to(site / "pyodide"))
    page = sorted(files - set(pyodide))
    build_info = (site / "sw.js").read_text(encoding="utf-8").split("const BUILD = ", 1)[1].split(";\n", 1)[0]
    precache = [local_file(base + rel, base, site) for rel in json.loads(build_info).get("precache", [])]
    return {"page": sizes(page), "pyodide": sizes(pyodide), "precache": sizes(p for p in precache if p)}


# --- report -----------------------------------------------------------------------------------


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def each(values, scale=1.0, fmt="{:.2f}"):
    return " ".join("-" if v is None else fmt.format(v * scale) for v in values)


def rounded(value):
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value


def fmt_s(value):
    return "-" if value is None else f"{value:.2f} s"


def kib(n):
    return f"{n / 1024:.0f} KiB"


def mib(n):
    return f"{n / 1024 / 1024:.1f} MiB"


def goal(value, limit):
    return "atingida" if value is not None and value <= limit else "NÃO atingida"


def line(label, value):
    print(f"  {label:<48} {value}")


def warm_only(runs: int) -> None:
    """`bench_widget.py warm [RUNS]`: only the warm "Verificar", measured inside the page."""
    from playwright.sync_api import sync_playwright

    with served_lesson() as (site, base):
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport=VIEWPORT)
            page = context.new_page()
            page.goto(base + "licao-2/")
            python_ready(page)
            in_page_verify(page)  # the first check of a visit warms the grader up: not counted
            times = [in_page_verify(page) for _ in range(runs)]
            browser.close()
    print(f"Verificar com o Python já carregado, medido na página (clique ao quadro pintado): "
          f"{statistics.median(times):.0f} ms, mediana de {runs} ({', '.join(f'{t:.0f}' for t in times)}); "
          f"meta ≤ {GOALS['warm_in_page_ms']} ms")
    print("JSON: " + json.dumps({"warm_verify_in_page_ms": statistics.median(times), "runs": times}))


# The revisit's steps, in order: (label, the page's or the Python worker's mark that ends it). The
# worker's marks are python-worker.js `timings` (ms since the epoch, like the page's own clock).
REVISIT_STEPS = [
    ("1ª pintura (FCP)", "fcp"),
    ("worker do Python criado", "created"),
    ("worker carregado (pyodide.mjs e módulos)", "worker"),
    ("registro do IndexedDB lido", "stored"),
    ("pyodide.asm.wasm: resposta", "wasmResponse"),
    ("snapshot lido do Blob", "snapshotRead"),
    ("snapshot conferido (SHA-256)", "snapshotChecked"),
    ("wasm compilado e instanciado", "wasm"),
    ("Python restaurado (loadPyodide)", "loaded"),
    ("corretores abertos", "unpacked"),
    ("Python pronto (init respondido)", "ready"),
    ("veredito na tela", "verdict"),
]
# The page's clock at the verdict, its first paint, and the worker's marks.
REVISIT_MARKS = f"""async () => {{
  const runtime = await {RUNTIME};
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  return {{ origin: performance.timeOrigin, fcp: fcp ? performance.timeOrigin + fcp.startTime : null,
            verdict: window.__verdictAt ?? null, stored: Boolean(runtime.booted?.stored),
            timings: runtime.booted?.timings ?? {{}}, files: runtime.booted?.files ?? {{}} }};
}}"""
# Installed before the page's scripts: the epoch time at which the verdict first shows.
VERDICT_CLOCK = """
new MutationObserver((_, observer) => {
  const summary = document.querySelector("section[data-exercise='nivel-2'] .exercise-summary");
  const text = summary?.textContent ?? "";
  // A grading verdict, not the one kept from the last visit ("da última vez").
  if (!text.includes("verificações passaram") || text.includes("última vez")) return;
  window.__verdictAt = performance.timeOrigin + performance.now();
  observer.disconnect();
}).observe(document, { childList: true, characterData: true, subtree: true });
"""
WASM_CACHE_EVENTS = ("v8.wasm.streamFromResponseCallback", "v8.wasm.moduleCacheHit", "v8.wasm.cachedModule",
                     "v8.wasm.compiledModule", "v8.wasm.moduleCacheInvalid")


def wasm_cache_events(events: list) -> dict:
    counts = dict.fromkeys(WASM_CACHE_EVENTS, 0)
    for event in events:
        if event.get("name") in counts:
            counts[event["name"]] += 1
    return counts


def trace_events(context, page, categories):
    """Start recording Chromium's trace for `page`'s renderer (workers included); returns a function
    that stops and returns the events."""
    cdp = context.new_cdp_session(page)
    events, done = [], []
    cdp.on("Tracing.dataCollected", lambda data: events.extend(data["value"]))
    cdp.on("Tracing.tracingComplete", lambda _: done.append(True))
    cdp.send("Tracing.start", {"traceConfig": {"includedCategories": categories}, "transferMode": "ReportEvents"})

    def stop():
        cdp.send("Tracing.end")
        deadline = time.perf_counter() + 30
        while not done and time.perf_counter() < deadline:
            page.wait_for_timeout(100)
        return events
    return stop


def revisit_breakdown(new_context, base, trace: bool = False) -> dict:
    """revisit_verdict's revisit, with the page's and the worker's marks (ms after navigation start).
    `new_context()`: a fresh context (Playwright's, like a private window) or a fresh profile on disk."""
    context = new_context()
    page = visit_until_stored(context, base)
    page.wait_for_function(CONTROLLED, timeout=20_000)
    page.close()
    page = context.new_page()
    page.add_init_script(VERDICT_CLOCK)
    stop_trace = trace_events(context, page, ["disabled-by-default-devtools.timeline", "v8.wasm"]) if trace else None
    start = time.perf_counter()
    page.goto(base + "licao-2/")
    verify_button(page).click()
    page.wait_for_function(GRADED, timeout=TIMEOUT_MS)
    elapsed = time.perf_counter() - start
    marks = page.evaluate(REVISIT_MARKS)
    events = wasm_cache_events(stop_trace()) if trace else None
    context.close()
    origin = marks["origin"]
    steps = {key: (marks.get(key) if key in ("fcp", "verdict") else marks["timings"].get(key)) for _, key in REVISIT_STEPS}
    steps = {key: None if value is None else value - origin for key, value in steps.items()}
    files = {name: [t - origin for t in span] for name, span in marks["files"].items()}
    return {"revisit_s": elapsed, "from_store": marks["stored"], "steps_ms": steps, "files_ms": files, "events": events}


def revisit_only(rounds: int, trace: bool, profile: bool) -> None:
    """`bench_widget.py revisit [ROUNDS] [trace] [profile]`: bare boots and revisits, alternated, and
    where the revisit's time goes (medians over the rounds, ms after the revisit's navigation start).
    `profile`: each revisit in a fresh browser profile on disk (a student's own browser) instead of a
    fresh Playwright context (a private window: no code cache on disk)."""
    from playwright.sync_api import sync_playwright

    load_before = os.getloadavg()
    bare, revisits = [], []
    with served_lesson() as (site, base):
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for _ in range(rounds):
                bare.append(bare_boot(browser, base)[0])
                if profile:
                    with tempfile.TemporaryDirectory() as folder:
                        revisits.append(revisit_breakdown(lambda: p.chromium.launch_persistent_context(
                            folder, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, viewport=VIEWPORT),
                            base, trace))
                else:
                    revisits.append(revisit_breakdown(lambda: browser.new_context(viewport=VIEWPORT), base, trace))
            browser.close()
    load_after = os.getloadavg()
    revisit_s = [r["revisit_s"] for r in revisits]
    ratio = med(revisit_s) / med(bare)
    where = "perfil novo em disco" if profile else "contexto novo do Playwright (janela privada)"
    print(f"Revisita no Chromium headless ({where}): {rounds} rodadas alternadas (Pyodide puro, revisita); medianas.")
    line("Pyodide puro (página mínima, worker de módulo):", f"{med(bare):5.2f} s  ({each(bare)})")
    line("revisita: primeiro veredito a frio:",
         f"{med(revisit_s):5.2f} s  ({each(revisit_s)}; do snapshot guardado em "
         f"{sum(r['from_store'] for r in revisits)}/{rounds})")
    line("razão revisita / Pyodide puro:",
         f"{ratio:5.2f}    (meta ≤ {GOALS['revisit_over_bare']}: {goal(ratio, GOALS['revisit_over_bare'])})")
    print("  Onde vai o tempo da revisita (ms após o início da navegação; mediana, e cada rodada):")
    for label, key in REVISIT_STEPS:
        values = [r["steps_ms"][key] for r in revisits]
        line(f"  {label}", f"{med(values) if med(values) is not None else float('nan'):7.0f}  ({each(values, fmt='{:.0f}')})")
    names = sorted({name for r in revisits for name in r["files_ms"]})
    print("  Arquivos que o worker baixou (início-fim, ms após o início da navegação; mediana):")
    for name in names:
        spans = [r["files_ms"].get(name) for r in revisits]
        starts, ends = [s[0] for s in spans if s], [s[1] for s in spans if s]
        line(f"  {name}", f"{med(starts):7.0f} - {med(ends):.0f}")
    if trace:
        for n, r in enumerate(revisits, 1):
            line(f"  eventos do cache de wasm, rodada {n}:", json.dumps(r["events"]))
    line("carga da máquina (uptime, 1/5/15 min):",
         f"antes {' '.join(f'{v:.1f}' for v in load_before)}; depois {' '.join(f'{v:.1f}' for v in load_after)} (2 núcleos)")
    print("JSON: " + json.dumps(rounded({"bare_boot_s": bare, "revisit": revisits, "revisit_over_bare": ratio,
                                         "load_before": list(load_before), "load_after": list(load_after)}),
                                ensure_ascii=False, separators=(",", ":")))


# --- memory ---------------------------------------------------------------------------------

MEMORY_SETTLE_MS = 8000  # long enough for a spare or a stored snapshot to be in place


def chromium_processes(tag: str) -> dict:
    """Chromium's processes of the browser launched with `tag` on its command line: {pid: kind}
    (browser, renderer, gpu-process, utility, zygote...). Workers run inside their page's renderer."""
    parents, kinds = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
        # Chromium rewrites its children's command lines into one space-separated string.
        text = b" ".join(cmdline).decode(errors="replace")
        kind = re.search(r"--type=(\S+)", text)
        kinds[int(entry.name)] = (kind[1] if kind else "browser", tag in text)
    roots = {pid for pid, (_, tagged) in kinds.items() if tagged}
    found = {}
    for pid in kinds:
        chain = pid
        while chain and chain not in roots:
            chain = parents.get(chain, 0)
        if chain:
            found[pid] = kinds[pid][0]
    return found


def pss_mib(pid: int) -> float:
    """Proportional set size (shared pages split among their users), MiB; 0 for a process gone."""
    try:
        for row in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if row.startswith("Pss:"):
                return int(row.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def memory_now(tag: str) -> dict:
    by_kind = {}
    for pid, kind in chromium_processes(tag).items():
        by_kind[kind] = by_kind.get(kind, 0.0) + pss_mib(pid)
    return {"renderer": by_kind.get("renderer", 0.0), "browser": by_kind.get("browser", 0.0),
            "total": sum(by_kind.values())}


def memory_round(p, base) -> dict:
    """One first visit in a browser of its own: memory at rest after the first verdict, then after a
    Parar on a loop (not isolated: the worker is replaced) and the next verdict, at rest again."""
    tag = f"--bench-memory-tag={os.getpid()}-{time.perf_counter_ns()}"
    browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[*CHROMIUM_ARGS, tag])
    try:
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        page.goto(base + "licao-2/")
        choose(page, "nivel-2", RIGHT_DIAGNOSIS)
        set_code(page, "nivel-2", SOLUTION)
        timed_verify(page)
        page.wait_for_timeout(MEMORY_SETTLE_MS)
        rest = memory_now(tag)
        set_code(page, "nivel-2", INFINITE)
        widget(page, "nivel-2").get_by_role("button", name="Verificar").click()
        stop = widget(page, "nivel-2").get_by_role("button", name="Parar")
        stop.wait_for(state="visible")
        page.wait_for_timeout(RUNNING_BEFORE_STOP_MS)
        stop.click()
        set_code(page, "nivel-2", SOLUTION)
        widget(page, "nivel-2").get_by_role("button", name="Verificar").click()
        page.wait_for_function(GRADED, timeout=TIMEOUT_MS)
        page.wait_for_timeout(MEMORY_SETTLE_MS)
        after = memory_now(tag)
        workers = len(page.workers)
    finally:
        browser.close()
    return {"rest": rest, "after_stop": after, "page_workers": workers}


def memory_only(rounds: int) -> None:
    """`bench_widget.py memory [ROUNDS]`: the memory of a lesson page at rest, before and after a Parar
    (proportional set size of Chromium's processes, /proc/PID/smaps_rollup): the renderer holds the
    page and its workers (the Python's wasm heap); the browser process holds Blobs (the snapshot)."""
    from playwright.sync_api import sync_playwright

    load_before = os.getloadavg()
    results = []
    with served_lesson() as (site, base):
        with sync_playwright() as p:
            for _ in range(rounds):
                results.append(memory_round(p, base))
    load_after = os.getloadavg()
    print(f"Memória da página da lição (Chromium headless, 1ª visita, PSS de /proc; {rounds} rodadas, medianas):")
    for moment, label in (("rest", "em repouso após o 1º veredito"), ("after_stop", "em repouso após Parar e veredito")):
        for part in ("renderer", "browser", "total"):
            values = [r[moment][part] for r in results]
            line(f"{label}: {part}", f"{med(values):6.0f} MiB  ({each(values, fmt='{:.0f}')})")
    line("workers da página depois de Parar:", " ".join(str(r["page_workers"]) for r in results))
    line("carga da máquina (uptime, 1/5/15 min):",
         f"antes {' '.join(f'{v:.1f}' for v in load_before)}; depois {' '.join(f'{v:.1f}' for v in load_after)} (2 núcleos)")
    print("JSON: " + json.dumps(rounded({"memory": results, "load_before": list(load_before),
                                         "load_after": list(load_after)}), separators=(",", ":")))


def main():
    from playwright.sync_api import sync_playwright

    if len(sys.argv) > 1 and sys.argv[1] == "warm":
        warm_only(int(sys.argv[2]) if len(sys.argv) > 2 else WARM_RUNS)
        return
    if len(sys.argv) > 1 and sys.argv[1] == "memory":
        memory_only(int(sys.argv[2]) if len(sys.argv) > 2 else ROUNDS)
        return
    if len(sys.argv) > 1 and sys.argv[1] == "revisit":
        rounds = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else ROUNDS
        revisit_only(rounds, "trace" in sys.argv[2:], "profile" in sys.argv[2:])
        return
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS
    load_before = os.getloadavg()
    began = time.perf_counter()
    bare, cold, cold_nosw, idle, idle_ready, sw, nosw, first, first2, revisit = [], [], [], [], [], [], [], [], [], []
    extras = {}
    with served_lesson() as (site, base):
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for n in range(rounds):
                bare.append(bare_boot(browser, base))
                cold.append(cold_verdict(browser, base, site, extras if n == 0 else None))
                seconds, ready = idle_verdict(browser, base)
                idle.append(seconds)
                idle_ready.append(ready)
                sw.append(with_service_worker(browser, site))
                nosw.append(without_service_worker(browser, base))
                first.append(first_visit_stop_at_once(browser, base))
                first2.append(first_visit_stop_at_once(browser, base, device_memory=2))
                revisit.append(revisit_verdict(browser, base))
                cold_nosw.append(cold_verdict(browser, base, site, service_workers="block"))
            browser.close()
    total = time.perf_counter() - began
    load_after = os.getloadavg()

    def col(rows, key):
        return [r[key] for r in rows]

    bare_s, bare_start = [b[0] for b in bare], [b[1] for b in bare]
    cold_s, cold_start = [c[0] for c in cold], [c[1] for c in cold]
    cold_nosw_s, cold_nosw_start = [c[0] for c in cold_nosw], [c[1] for c in cold_nosw]
    busy_bare, busy_cold = ({k: med([r[2][k] for r in rows]) for k in rows[0][2]} for rows in (bare, cold))
    ratio = med(cold_s) / med(bare_s)
    warm, weight = extras["warm"], extras["weight"]
    offline_ok = sum(r["offline_ok"] for r in sw)
    summaries = {r["summary"] for r in sw + nosw + first + first2}
    revisit_ratio = med(col(revisit, "revisit_s")) / med(bare_s)
    figures = {
        "rounds": rounds,
        "bare_boot_s": med(bare_s), "cold_verdict_s": med(cold_s), "cold_over_bare": ratio,
        "cold_verdict_no_sw_s": med(cold_nosw_s), "cold_no_sw_over_bare": med(cold_nosw_s) / med(bare_s),
        "python_requested_bare_s": med(bare_start), "python_requested_cold_s": med(cold_start),
        "python_requested_cold_no_sw_s": med(cold_nosw_start),
        "main_thread_bare": busy_bare, "main_thread_cold": busy_cold,
        "idle_verify_s": med(idle), "idle_python_ready": sum(idle_ready),
        "warm_verify_ms": med(warm) * 1000,
        "warm_verify_in_page_ms": med(extras["warm_in_page"]),
        "worker_verify_ms": med(extras["worker"]),
        "stop_to_verdict_with_sw_s": med(col(sw, "stop_s")), "stop_to_verdict_without_sw_s": med(col(nosw, "stop_s")),
        "stop_itself_with_sw_s": med(col(sw, "stopped_s")), "stop_itself_without_sw_s": med(col(nosw, "stopped_s")),
        "verdict_after_stop_with_sw_s": med(col(sw, "graded_s")),
        "verdict_after_stop_without_sw_s": med(col(nosw, "graded_s")),
        "stop_to_verdict_first_visit_s": med(col(first, "stop_s")),
        "stop_itself_first_visit_s": med(col(first, "stopped_s")),
        "stop_first_visit_restored_runs": sum(r["restored"] for r in first),
        "stop_to_verdict_memory_2_s": med(col(first2, "stop_s")),
        "stop_itself_memory_2_s": med(col(first2, "stopped_s")),
        "stop_memory_2_restored_runs": sum(r["restored"] for r in first2),
        "revisit_verdict_s": med(col(revisit, "revisit_s")), "revisit_over_bare": revisit_ratio,
        "revisit_from_store_runs": sum(r["from_store"] for r in revisit),
        "bare_boot_warm_cache_s": med(col(revisit, "warm_bare_s")),
        "revisit_over_warm_bare": med(col(revisit, "revisit_s")) / med(col(revisit, "warm_bare_s")),
        "isolated_first_visit": any(r["isolated"] is True for r in first),
        "isolated_with_sw": all(r["isolated"] is True for r in sw),
        "isolated_without_sw": any(r["isolated"] is True for r in nosw),
        "offline_works": offline_ok == len(sw), "offline_verdict_s": med(col(sw, "offline_s")),
        "page_bytes": weight["page"]["raw"], "page_bytes_gzip": weight["page"]["gzip"], "page_files": weight["page"]["files"],
        "pyodide_bytes": weight["pyodide"]["raw"], "pyodide_bytes_gzip": weight["pyodide"]["gzip"],
        "precache_bytes": weight["precache"]["raw"], "precache_bytes_gzip": weight["precache"]["gzip"],
        "precache_files": weight["precache"]["files"],
        "runs": {"bare_boot_s": bare_s, "cold_verdict_s": cold_s, "cold_verdict_no_sw_s": cold_nosw_s,
                 "idle_verify_s": idle, "warm_verify_s": warm,
                 "stop_with_sw_s": col(sw, "stop_s"), "stop_without_sw_s": col(nosw, "stop_s"),
                 "stop_first_visit_s": col(first, "stop_s"), "stop_memory_2_s": col(first2, "stop_s"),
                 "revisit_verdict_s": col(revisit, "revisit_s"), "bare_boot_warm_cache_s": col(revisit, "warm_bare_s"),
                 "offline_verdict_s": col(sw, "offline_s")},
        "total_s": total, "load_before": list(load_before), "load_after": list(load_after),
    }

    print(f"Widget no Chromium headless: {rounds} rodadas alternadas, cada medida num contexto novo "
          "(cache HTTP vazio); medianas, e entre parênteses cada tentativa.")
    line("Pyodide puro (página mínima, worker de módulo):", f"{med(bare_s):5.2f} s  ({each(bare_s)})")
    line("primeiro veredito a frio (Verificar ao abrir):", f"{med(cold_s):5.2f} s  ({each(cold_s)})")
    line("razão veredito a frio / Pyodide puro:",
         f"{ratio:5.2f}    (meta ≤ {GOALS['ratio']:.2f}: {goal(ratio, GOALS['ratio'])})")
    line("  o mesmo com service workers bloqueados:",
         f"{med(cold_nosw_s):5.2f} s  ({each(cold_nosw_s)}; razão {figures['cold_no_sw_over_bare']:.2f})")
    line("  pedido do pyodide.mjs após abrir a página:",
         f"{med(cold_start):5.2f} s na lição, {med(cold_nosw_start):.2f} s sem service worker, "
         f"{med(bare_start):.2f} s na página mínima")
    line("  thread principal da página até o veredito:",
         f"{busy_cold['task_s']:5.2f} s na lição (scripts {busy_cold['script_s']:.2f} s, estilo e layout "
         f"{busy_cold['style_layout_s']:.2f} s); {busy_bare['task_s']:.2f} s na página mínima")
    line(f"Verificar após {IDLE_S} s parado na lição:",
         f"{med(idle):5.2f} s  ({each(idle)}; Python pronto antes do clique em {sum(idle_ready)}/{rounds}; "
         f"meta ≤ {GOALS['idle_s']} s: {goal(med(idle), GOALS['idle_s'])})")
    line("Verificar com o Python já carregado:", f"{med(warm) * 1000:5.0f} ms ({WARM_RUNS} tentativas, clique a veredito na tela)")
    line("  o mesmo medido na página (clique ao quadro pintado):",
         f"{med(extras['warm_in_page']):5.0f} ms ({each(extras['warm_in_page'], fmt='{:.0f}')}; "
         f"meta ≤ {GOALS['warm_in_page_ms']} ms: {goal(med(extras['warm_in_page']), GOALS['warm_in_page_ms'])})")
    line("  o mesmo só no worker (pedido e resposta):",
         f"{med(extras['worker']):5.1f} ms ({WORKER_RUNS} tentativas; meta ≤ {GOALS['worker_ms']} ms: "
         f"{goal(med(extras['worker']), GOALS['worker_ms'])})")
    with_sw = figures["stop_to_verdict_with_sw_s"]
    line("Parar -> próximo veredito, com service worker:",
         f"{with_sw:5.2f} s  ({each(col(sw, 'stop_s'))}; crossOriginIsolated: "
         f"{'sim' if figures['isolated_with_sw'] else 'não'}; meta ≤ {GOALS['stop_with_sw_s']} s: "
         f"{goal(with_sw, GOALS['stop_with_sw_s'])})")
    line("Parar -> próximo veredito, sem service worker:",
         f"{figures['stop_to_verdict_without_sw_s']:5.2f} s  ({each(col(nosw, 'stop_s'))}; crossOriginIsolated: "
         f"{'sim' if figures['isolated_without_sw'] else 'não'})")
    first_s = figures["stop_to_verdict_first_visit_s"]
    line("Parar -> próximo veredito, 1ª visita, logo após o 1º:",
         f"{first_s:5.2f} s  ({each(col(first, 'stop_s'))}; na página; crossOriginIsolated: "
         f"{'sim' if figures['isolated_first_visit'] else 'não'}; restaurado do snapshot em "
         f"{figures['stop_first_visit_restored_runs']}/{rounds}; "
         f"meta ≤ {GOALS['stop_first_visit_s']} s: {goal(first_s, GOALS['stop_first_visit_s'])})")
    mem2_s = figures["stop_to_verdict_memory_2_s"]
    line("  o mesmo com deviceMemory 2:",
         f"{mem2_s:5.2f} s  ({each(col(first2, 'stop_s'))}; restaurado em {figures['stop_memory_2_restored_runs']}/{rounds}; "
         f"meta ≤ {GOALS['stop_first_visit_s']} s: {goal(mem2_s, GOALS['stop_first_visit_s'])})")
    line("revisita: primeiro veredito a frio:",
         f"{figures['revisit_verdict_s']:5.2f} s  ({each(col(revisit, 'revisit_s'))}; do snapshot guardado em "
         f"{figures['revisit_from_store_runs']}/{rounds}; razão / Pyodide puro {revisit_ratio:.2f}, meta ≤ "
         f"{GOALS['revisit_over_bare']}: {goal(revisit_ratio, GOALS['revisit_over_bare'])}; / Pyodide puro com cache "
         f"quente ({figures['bare_boot_warm_cache_s']:.2f} s) {figures['revisit_over_warm_bare']:.2f})")
    line("  na página: Parar até 'interrompida'; veredito:",
         f"com SW {fmt_s(figures['stop_itself_with_sw_s'])} e {fmt_s(figures['verdict_after_stop_with_sw_s'])}; "
         f"sem SW {fmt_s(figures['stop_itself_without_sw_s'])} e {fmt_s(figures['verdict_after_stop_without_sw_s'])}; "
         f"1ª visita {fmt_s(figures['stop_itself_first_visit_s'])} até 'interrompida'")
    for n, r in enumerate(sw, 1):
        if r["stop_s"] > 2 * GOALS["stop_with_sw_s"]:
            line(f"  atenção, rodada {n} com service worker:",
                 f"Parar -> veredito em {r['stop_s']:.2f} s (Parar até 'interrompida': {fmt_s(r['stopped_s'])})")
    if summaries != {ALL_PASS}:
        line("atenção, vereditos depois de Parar:", sorted(summaries))
    offline_s = figures["offline_verdict_s"]
    line("revisita offline (servidor parado):",
         f"{'funciona' if figures['offline_works'] else 'não funciona'} ({offline_ok}/{len(sw)}); "
         + (f"solução aprovada {offline_s:.2f} s após abrir a página ({each(col(sw, 'offline_s'))})"
            if offline_s is not None else "nenhum veredito"))
    for r in sw:
        if not r["offline_ok"]:
            line("  falhou:", r["offline_note"])
    page, pyodide, precache = weight["page"], weight["pyodide"], weight["precache"]
    line("página da lição sem o Pyodide:", f"{kib(page['raw'])} ({kib(page['gzip'])} com gzip) em {page['files']} arquivos")
    line("Pyodide baixado pela página:", f"{mib(pyodide['raw'])} ({mib(pyodide['gzip'])} com gzip) em {pyodide['files']} arquivos")
    line("pré-cache do service worker na 1ª visita:",
         f"{kib(precache['raw'])} ({kib(precache['gzip'])} com gzip) em {precache['files']} arquivos")
    line("tempo total da medição:", f"{total:.0f} s")
    line("carga da máquina (uptime, 1/5/15 min):",
         f"antes {' '.join(f'{v:.1f}' for v in load_before)}; depois {' '.join(f'{v:.1f}' for v in load_after)} (2 núcleos)")
    print("JSON: " + json.dumps(rounded(figures), ensure_ascii=False, separators=(",", ":")))


if __name__ == "__main__":
    main()
