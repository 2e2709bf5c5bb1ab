"""The core student path in the two other browser engines (Chromium runs the full suite): Firefox
(Debian's firefox-esr, over WebDriver BiDi) and WebKitGTK, the engine of Safari (MiniBrowser through
WebKitWebDriver). One browser session per engine: mount, Verificar on each exercise, the timeline,
Executar and Parar on an infinite loop, Exportar respostas, a reload under the service worker
(cross-origin isolated) whose Python is restored from the memory snapshot the first visit kept, an
offline reload (restored too), and no error in the page at any point.

A missing engine fails the run with the reason (`make test` installs them), never a skip."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import engines
from conftest import ROOT, _QuietHandler, _serve
from graders import exercises
from test_browser_widget import RIGHT_DIAGNOSIS, SOLUTION

pytestmark = pytest.mark.browser

ALL_PASS = "Todas as verificações passaram."
EXERCISES = ("quiz-sobrescrita", "nivel-1", "nivel-2")
INFINITE = "def run_agent(task, tools, call_model, execute_tool):\n    while True:\n        pass\n"
TORN = (ROOT / "tests" / "corpus" / "nivel-2" / "bad_only_point_a_fixed.py").read_text(encoding="utf-8")
NIVEL_1_STARTER = exercises.read_text("nivel-1", "starter.py")
# Classic WebDriver has no console API: the served pages record their own errors from the first byte.
HOOK = (b"<script>window.__problems = []; (function () { var p = window.__problems;"
        b" addEventListener('error', function (e) { p.push('error: ' + (e.message || (e.target && (e.target.src || e.target.href)) || e.type)); }, true);"
        b" addEventListener('unhandledrejection', function (e) { p.push('unhandledrejection: ' + String(e.reason && e.reason.stack || e.reason)); });"
        b" var original = console.error; console.error = function () {"
        b" p.push('console.error: ' + Array.prototype.map.call(arguments, String).join(' ')); return original.apply(console, arguments); };"
        b" })();</script>")


class _HookedHandler(_QuietHandler):
    """Serves the site as a plain static server does, with HOOK first in every page's <head>."""

    def do_GET(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path) and self.path.split("?")[0].endswith("/"):
            path = os.path.join(path, "index.html")
        if not path.endswith(".html") or not os.path.isfile(path):
            return super().do_GET()
        body = Path(path).read_bytes().replace(b"<head>", b"<head>" + HOOK, 1)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


# Page functions share these helpers; each runs as `async (...args) => value`.
PRELUDE = """
  const sec = (id) => document.querySelector(`section.exercise[data-exercise='${id}']`);
  const button = (id, name) => [...sec(id).querySelectorAll('button')].find((b) => b.textContent.trim() === name);
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const until = async (check, what, ms = 360000) => {
    const end = performance.now() + ms;
    for (;;) {
      const value = check();
      if (value) return value;
      if (performance.now() > end) throw new Error('esperou demais: ' + (typeof what === 'function' ? what() : what));
      await sleep(50);
    }
  };
  const states = (id) => Object.fromEntries([...sec(id).querySelectorAll('li[data-criterion]')]
    .map((li) => [li.dataset.criterion, li.dataset.state]));
"""


def page_function(params: str, body: str) -> str:
    return f"async ({params}) => {{ {PRELUDE} {body} }}"


MOUNT = page_function("", """
  for (const section of document.querySelectorAll('section.exercise')) {
    section.scrollIntoView();
    await until(() => section.dataset.mounted === 'true', 'o exercício ' + section.dataset.exercise + ' montar');
  }
  return document.querySelectorAll('section.exercise[data-mounted="true"]').length;
""")
PYTHON_READY = page_function("", """
  await until(() => sec('nivel-2').querySelector('.exercise-status').textContent.includes('Python pronto'), 'Python pronto');
  return performance.now();
""")
CHOOSE = page_function("id, answers", """
  for (const [question, option] of Object.entries(answers)) {
    const input = sec(id).querySelector(`input[name='${id}--${question}'][value='${option}']`);
    if (!input.checked) input.click();
  }
  return true;
""")
# What a student does: Ctrl+A, then paste. A page cannot fill the clipboard of a synthetic paste
# in every engine (Firefox leaves it empty): there the text goes in as typed input instead.
SET_CODE = page_function("id, code", """
  const content = sec(id).querySelector('.cm-content');
  const text = () => [...content.querySelectorAll('.cm-line')].map((l) => l.textContent).join('\\n');
  const selectAll = () => content.dispatchEvent(new KeyboardEvent('keydown',
    { key: 'a', code: 'KeyA', keyCode: 65, ctrlKey: true, bubbles: true, cancelable: true }));
  content.focus();
  selectAll();
  const clipboard = new DataTransfer();
  clipboard.setData('text/plain', code);
  content.dispatchEvent(new ClipboardEvent('paste', { clipboardData: clipboard, bubbles: true, cancelable: true }));
  await sleep(100);
  if (text() !== code) {
    selectAll();
    document.execCommand('insertText', false, code);
  }
  await until(() => text() === code, () => 'o editor receber o código, e ele tem ' + JSON.stringify(text()), 10000);
  return text();
""")
VERIFY = page_function("id", """
  const summary = sec(id).querySelector('.exercise-summary');
  summary.textContent = '';
  const start = performance.now();
  button(id, 'Verificar').click();
  await until(() => summary.textContent && !button(id, 'Verificar').disabled, 'o veredito de ' + id);
  return { summary: summary.textContent, ms: performance.now() - start, states: states(id),
           timeline: !sec(id).querySelector('.exercise-timeline').hidden };
""")
RUN_AND_STOP = page_function("id", """
  const output = sec(id).querySelector('.exercise-output');
  button(id, 'Executar').click();
  await until(() => !button(id, 'Parar').hidden, 'Parar aparecer');
  await sleep(500); // the loop runs by now
  const start = performance.now();
  button(id, 'Parar').click();
  await until(() => !output.hidden && !button(id, 'Executar').disabled, 'a execução parar');
  return { ms: performance.now() - start, text: output.textContent };
""")
TIMELINE = page_function("id", """
  const marks = [...sec(id).querySelectorAll('.crash-timeline__mark')];
  const chosen = marks.filter((m) => m.getAttribute('aria-checked') === 'true');
  return { count: marks.length, chosen: chosen.map((m) => m.dataset.outcome),
           detail: sec(id).querySelector('.crash-timeline__detail')?.textContent ?? '' };
""")
# The file's bytes as the page hands them to the browser (WebKit's download is not observable).
EXPORT = page_function("", """
  document.querySelector('.lesson-export').scrollIntoView();
  const made = [];
  const original = URL.createObjectURL;
  URL.createObjectURL = (blob) => { made.push(blob); return original.call(URL, blob); };
  try {
    [...document.querySelectorAll('.lesson-export button')].find((b) => b.textContent.trim() === 'Exportar respostas').click();
  } finally {
    URL.createObjectURL = original;
  }
  return made.length ? await made[made.length - 1].text() : null;
""")
PROBLEMS = page_function("", "return window.__problems ?? ['a página não registrou seus erros'];")
# The service worker controls the page and keeps Python's five core files for offline visits.
OFFLINE_READY = page_function("", """
  await until(() => navigator.serviceWorker && navigator.serviceWorker.controller, 'o service worker controlar a página');
  for (;;) {
    for (const name of await caches.keys()) {
      if (name.includes(':pyodide:') && (await (await caches.open(name)).keys()).length === 5) return true;
    }
    await sleep(200);
  }
""")
# How the page's Python came to be (runtime.js `booted`) and how its snapshot was kept for the next
# visit (`stored`: "blob", "bytes" where the engine refuses Blobs in IndexedDB, false if refused);
# `wait`: until the worker has answered the store, which the page asks for once it is quiet.
SNAPSHOT = page_function("wait", """
  const base = document.baseURI.replace(/licao-2\\/.*$/, '');
  const runtime = (await import(new URL('assets/javascripts/lesson/runtime.js', base))).sharedRuntime();
  await until(() => runtime.booted, 'o Python iniciar');
  const seen = () => JSON.stringify({ state: runtime.state, booted: Object.keys(runtime.booted ?? {}),
    storing: Boolean(runtime.storing), current: runtime.storing === runtime.snapshot });
  if (wait) await until(() => runtime.stored !== null, () => 'o snapshot ser guardado: ' + seen(), 120000);
  const { fresh = false, restored = false, stored = false } = runtime.booted;
  return { kept: runtime.stored, booted: { fresh, restored, stored } };
""")
ISOLATION = page_function("", """
  return { isolated: globalThis.crossOriginIsolated === true, controlled: Boolean(navigator.serviceWorker?.controller),
           sharedMemory: typeof SharedArrayBuffer === 'function' };
""")


@pytest.fixture(params=["firefox", "webkit"])
def engine(request, tmp_path):
    missing = engines.missing_engine(request.param)
    if missing:
        pytest.fail(f"{missing}; `make test` instala os navegadores (make engines).")
    if request.param == "firefox":
        browser = engines.Firefox(tmp_path / "perfil", tmp_path / "downloads")
    else:
        browser = engines.WebKit()
    yield browser
    browser.close()


@pytest.fixture
def hooked_host(site_dir, tmp_path):
    served = tmp_path / "site"
    shutil.copytree(site_dir, served)
    server = _serve(served, _HookedHandler)
    yield server, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()  # again after the offline step: a no-op then
    server.server_close()


def cli_states(path: Path, exercise: str) -> dict[str, str]:
    """What the instructor's CLI says of the exported answers, as the widget shows it."""
    from graders.grading import grade
    from graders.submission import read

    return {c.id: "ok" if c.passed else "falhou" for c in grade(exercise, read(str(path), exercise)).criteria}


def test_core_student_path(engine, hooked_host, tmp_path):
    server, url = hooked_host
    figures = {"engine": engine.version}

    def clean(where):
        assert engine.call(PROBLEMS) == [], f"{engine.version}, {where}"

    # First visit: every exercise mounts, Python starts.
    engine.goto(url + "licao-2/")
    assert engine.call(MOUNT) == 3
    figures["python_ready_s"] = round(engine.call(PYTHON_READY) / 1000, 1)

    # Verificar on each exercise: the quiz (wrong, then right), Nível 1's starter, Nível 2 with its timeline.
    engine.call(CHOOSE, "quiz-sobrescrita", {"resposta": "lento"})
    first = engine.call(VERIFY, "quiz-sobrescrita")
    figures["first_verdict_s"] = round(first["ms"] / 1000, 2)
    assert first["states"] == {"resposta": "falhou"}, first
    engine.call(CHOOSE, "quiz-sobrescrita", {"resposta": "meio-documento"})
    assert engine.call(VERIFY, "quiz-sobrescrita")["summary"] == "A verificação passou."
    assert engine.call(SET_CODE, "nivel-1", NIVEL_1_STARTER) == NIVEL_1_STARTER
    nivel_1 = engine.call(VERIFY, "nivel-1")
    assert nivel_1["states"]["seis-campos"] == "falhou", nivel_1
    engine.call(CHOOSE, "nivel-2", RIGHT_DIAGNOSIS)  # Nível 2 shows its timeline once these are answered
    engine.call(SET_CODE, "nivel-2", TORN)
    torn = engine.call(VERIFY, "nivel-2")
    assert torn["timeline"], torn
    timeline = engine.call(TIMELINE, "nivel-2")
    assert timeline["count"] > 1 and timeline["chosen"] == ["falhou"], timeline
    assert "Não é um JSON completo (0 bytes)" in timeline["detail"], timeline

    # Executar on an infinite loop, and Parar: the page recovers and grades again.
    engine.call(SET_CODE, "nivel-2", INFINITE)
    stopped = engine.call(RUN_AND_STOP, "nivel-2")
    assert "Execução interrompida" in stopped["text"], stopped
    figures["parar_s"] = round(stopped["ms"] / 1000, 2)
    assert engine.call(SET_CODE, "nivel-2", SOLUTION) == SOLUTION
    solved = engine.call(VERIFY, "nivel-2")
    assert solved["summary"] == ALL_PASS, solved

    # Exportar respostas: the CLI reads the file and agrees with what the widgets show.
    text = engine.call(EXPORT)
    assert text, "Exportar respostas não gerou arquivo"
    exported = tmp_path / "respostas.json"
    exported.write_text(text, encoding="utf-8")
    doc = json.loads(text)
    assert doc["format"] == "checkpoints-licao-2/respostas" and set(doc["exercises"]) == set(EXERCISES)
    assert cli_states(exported, "nivel-2") == solved["states"]
    assert cli_states(exported, "nivel-1") == nivel_1["states"]
    assert cli_states(exported, "quiz-sobrescrita") == {"resposta": "ok"}
    if engine.name == "firefox":  # the browser saved the very same file
        saved = engine.downloads / "respostas-licao-2.json"
        wait_for_file(saved)
        assert json.loads(saved.read_text(encoding="utf-8")) == doc
    clean("primeira visita")

    # The memory snapshot the first visit's Python made is kept for the next visit.
    first_python = engine.call(SNAPSHOT, True)
    figures["snapshot_kept_as"] = first_python["kept"]
    assert first_python["kept"] in ("blob", "bytes"), first_python
    clean("snapshot guardado")

    # Second visit: the service worker isolates the page; Parar still stops the loop.
    assert engine.call(OFFLINE_READY) is True
    engine.reload()
    isolation = engine.call(ISOLATION)
    figures["isolated"] = isolation
    assert isolation["isolated"] and isolation["controlled"], isolation
    assert engine.call(MOUNT) == 3
    figures["reload_python_ready_s"] = round(engine.call(PYTHON_READY) / 1000, 1)
    assert engine.call(VERIFY, "quiz-sobrescrita")["summary"] == "A verificação passou."
    # Its Python was restored from the snapshot the first visit kept, not booted afresh.
    assert engine.call(SNAPSHOT, False)["booted"] == {"fresh": False, "restored": True, "stored": True}
    engine.call(SET_CODE, "nivel-2", INFINITE)
    workers = worker_threads(engine.name)
    stopped = engine.call(RUN_AND_STOP, "nivel-2")
    assert "Execução interrompida" in stopped["text"], stopped
    figures["parar_isolated_s"] = round(stopped["ms"] / 1000, 2)
    if not isolation["sharedMemory"]:
        # Parar replaced the worker: the stopped one's thread ends, it does not spin on in the tab.
        assert_threads_back(engine.name, workers)
    engine.call(SET_CODE, "nivel-2", SOLUTION)
    assert engine.call(VERIFY, "nivel-2")["summary"] == ALL_PASS
    clean("recarga com o service worker")

    # Offline: the server is gone; the page, Python and the graders come from the cache.
    server.shutdown()
    server.server_close()
    engine.reload()
    assert engine.call(MOUNT) == 3
    figures["offline_python_ready_s"] = round(engine.call(PYTHON_READY) / 1000, 1)
    assert engine.call(VERIFY, "quiz-sobrescrita")["summary"] == "A verificação passou."
    assert engine.call(VERIFY, "nivel-2")["summary"] == ALL_PASS  # the code typed before, kept
    assert engine.call(SNAPSHOT, False)["booted"] == {"fresh": False, "restored": True, "stored": True}
    clean("recarga sem rede")
    print(f"\n{json.dumps(figures, ensure_ascii=False)}")


# The thread each dedicated worker gets in the browser's content processes, by engine.
WORKER_THREAD = {"webkit": ("WebKitWebProcess", "WebCore: Worker"), "firefox": ("firefox", "DOM Worker")}


def worker_threads(engine_name: str) -> int:
    """How many worker threads the engine's content processes hold (read from /proc, outside the page)."""
    process, thread = WORKER_THREAD[engine_name]
    count = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if process.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue
            for task in Path(f"/proc/{pid}/task").iterdir():
                count += (task / "comm").read_text(errors="replace").strip() == thread
        except OSError:
            continue
    return count


def assert_threads_back(engine_name: str, before: int, timeout_s: float = 20) -> None:
    import time

    deadline = time.monotonic() + timeout_s
    while (now := worker_threads(engine_name)) > before:
        assert time.monotonic() < deadline, (
            f"{now} threads de worker depois de Parar, {before} antes: o worker parado continua rodando")
        time.sleep(0.2)


def wait_for_file(path: Path, timeout_s: float = 30) -> None:
    import time

    deadline = time.monotonic() + timeout_s
    while not (path.is_file() and path.stat().st_size):
        assert time.monotonic() < deadline, f"o download não apareceu em {path}"
        time.sleep(0.2)
