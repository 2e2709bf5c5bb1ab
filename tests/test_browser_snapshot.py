"""The Python memory snapshot in a real Chromium (python-worker.js, runtime.js, snapshot-store.js,
docs/sw.js): whatever happens to it, each case ends with a working Python and a correct verdict."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from test_browser_offline import CONTROLLED, Host, wait_until
from test_browser_site import Recorder
from test_browser_widget import (
    RIGHT_DIAGNOSIS, SOLUTION, STOPPED, SWALLOWS_EVERY_INTERRUPT, choose, open_isolated_lesson, set_code, verify,
    verify_then_stop, widget,
)

pytestmark = pytest.mark.browser

ALL_PASS = "Todas as verificações passaram."
INFINITE = "def run_agent(task, tools, call_model, execute_tool):\n    while True:\n        pass\n"
BASE = "document.baseURI.replace(/licao-2\\/.*$/, '')"
RUNTIME = f"import(new URL('assets/javascripts/lesson/runtime.js', {BASE})).then(m => m.sharedRuntime())"
STORE = f"import(new URL('assets/javascripts/lesson/snapshot-store.js', {BASE}))"
# The stored record as the page sees it: key, digest, whether the digest matches its bytes, and its
# form ("blob", or "bytes" where the browser refuses a Blob: see REFUSE_BLOBS).
STORED = (f"async () => {{ const m = await {STORE}; const r = await m.readSnapshot(); if (!r) return null;"
          " const bytes = r.bytes ?? new Uint8Array(await r.blob.arrayBuffer());"
          " const actual = await m.sha256Hex(bytes);"
          " return {key: r.key, digest: r.digest, intact: actual === r.digest, form: r.bytes ? 'bytes' : 'blob'}; }")
# What WebKit does in an ephemeral session (private browsing, WebDriver): any Blob put into
# IndexedDB fails. Put first in the served snapshot-store.js, so the worker and the page both get it.
REFUSE_BLOBS = """const refusedPut = IDBObjectStore.prototype.put;
IDBObjectStore.prototype.put = function (value, key) {
  if (value?.blob instanceof Blob) throw new DOMException("Error preparing Blob/File data to be stored in object store", "UnknownError");
  return refusedPut.call(this, value, key);
};
"""
# Counts what the page posts to Python workers, and holds a restoring worker's "init" for
# `window.__holdRestore` ms: a restore that takes long enough to press buttons during it.
WATCH_WORKERS = """
window.__calls = 0;
window.__restores = 0;
const NativeWorker = window.Worker;
window.Worker = class extends NativeWorker {
  constructor(url, options) {
    super(url, options);
    this.restoring = String(url).includes("python-worker") && options?.name === "restore";
    if (this.restoring) window.__restores += 1;
  }
  postMessage(message, ...rest) {
    if (message?.type === "call") window.__calls += 1;
    if (this.restoring && message?.type === "init" && window.__holdRestore) {
      setTimeout(() => super.postMessage(message, ...rest), window.__holdRestore);
      return;
    }
    super.postMessage(message, ...rest);
  }
};
"""

# Counts the snapshot writers the page starts, and delivers the snapshot to each 5 s late.
HOLD_WRITER = """
window.__writers = 0;
const PlainWorker = window.Worker;
window.Worker = class extends PlainWorker {
  constructor(url, options) {
    super(url, options);
    this.writer = String(url).includes("snapshot-writer");
    if (this.writer) window.__writers += 1;
  }
  postMessage(message, ...rest) {
    if (this.writer) setTimeout(() => super.postMessage(message, ...rest), 5000);
    else super.postMessage(message, ...rest);
  }
};
"""


def raw_put(page, record_js: str):
    """Put a record straight into the snapshot database (no digest computed)."""
    page.evaluate(f"""async () => {{
        const m = await {STORE};
        const record = await m.readSnapshot();
        const next = await ({record_js})(record);
        const db = await new Promise((ok, fail) => {{ const q = indexedDB.open(m.DATABASE, 1); q.onsuccess = () => ok(q.result); q.onerror = () => fail(q.error); }});
        await new Promise((ok, fail) => {{ const tx = db.transaction('snapshots', 'readwrite');
            tx.objectStore('snapshots').put(next, 'current'); tx.oncomplete = ok; tx.onerror = () => fail(tx.error); }});
        db.close();
    }}""")


def state(page):
    return page.evaluate(f"{RUNTIME}.then(r => ({{state: r.state, booted: r.booted && {{fresh: !!r.booted.fresh,"
                         " restored: !!r.booted.restored, stored: !!r.booted.stored}}))")


def wait_ready(page):
    wait_until(page, f"() => {RUNTIME}.then(r => r.state === 'ready')", timeout_s=90)


def grade_solution(page):
    choose(page, "nivel-2", RIGHT_DIAGNOSIS)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS


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
    ctx.add_init_script(WATCH_WORKERS)
    yield ctx
    ctx.close()


def visit_and_store(context, url):
    """A first visit: a verdict, then the snapshot stored in idle time (intact, under this build's key)."""
    page = context.new_page()
    page.goto(url + "licao-2/")
    grade_solution(page)
    assert state(page)["booted"]["fresh"]
    stored = wait_until(page, STORED, timeout_s=60)
    assert stored["intact"]
    return page, stored


def revisit(context, url):
    page = context.new_page()
    page.goto(url + "licao-2/")
    grade_solution(page)
    return page


def build_key(host) -> str:
    sw = (host.directory / "sw.js").read_text(encoding="utf-8")
    return json.loads(re.search(r"^const BUILD = (.*);$", sw, re.M).group(1))["snapshotKey"]


def test_a_revisit_restores_from_the_stored_snapshot(context, host):
    recorder = Recorder(context)
    page, stored = visit_and_store(context, host.url)
    assert stored["key"] == build_key(host)
    page.wait_for_function(CONTROLLED, timeout=20_000)
    page.close()
    page = revisit(context, host.url)
    assert state(page)["booted"] == {"fresh": False, "restored": True, "stored": True}
    # The revisit is isolated (the service worker's headers): code that swallows the interrupt gets
    # a Python restored from the stored snapshot, which the page kept.
    assert page.evaluate("crossOriginIsolated") is True
    set_code(page, "nivel-2", SWALLOWS_EVERY_INTERRUPT)
    assert verify_then_stop(page, "nivel-2") == STOPPED
    wait_ready(page)
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    assert state(page)["booted"]["restored"] and page.evaluate("window.__restores") == 1
    assert recorder.console_errors == []


def test_a_swallowed_interrupt_ends_in_a_python_restored_from_the_snapshot(browser, isolated_site_url):
    context, page, recorder = open_isolated_lesson(browser, isolated_site_url, WATCH_WORKERS)
    grade_solution(page)
    set_code(page, "nivel-2", SWALLOWS_EVERY_INTERRUPT)
    assert verify_then_stop(page, "nivel-2") == STOPPED
    wait_ready(page)
    assert state(page)["booted"]["restored"] and page.evaluate("window.__restores") == 1
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    # The restored Python took the interrupt buffer again: Parar interrupts it in place.
    set_code(page, "nivel-2", INFINITE)
    assert verify_then_stop(page, "nivel-2") == STOPPED
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    assert page.evaluate("window.__restores") == 1
    assert recorder.console_errors == []
    context.close()


def stop_into_a_slow_restore(page, hold_ms: int):
    """Parar on a loop, with the next restore held for `hold_ms`: the page is restoring when it returns."""
    grade_solution(page)
    page.evaluate(f"window.__holdRestore = {hold_ms}")
    set_code(page, "nivel-2", INFINITE)
    assert verify_then_stop(page, "nivel-2") == STOPPED
    assert state(page)["state"] == "restarting"
    status = widget(page, "nivel-2").locator(".exercise-status")
    assert status.inner_text() == "Reiniciando o Python…"


def test_verificar_during_a_restore_waits_and_runs_once(context, host):
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(host.url + "licao-2/")
    stop_into_a_slow_restore(page, 3000)
    calls = page.evaluate("window.__calls")
    set_code(page, "nivel-2", SOLUTION)
    section = widget(page, "nivel-2")
    section.locator(".exercise-summary").evaluate("el => el.textContent = ''")
    section.get_by_role("button", name="Verificar").click()
    assert section.locator(".exercise-status").inner_text() == "Reiniciando o Python…"
    assert section.get_by_role("button", name="Verificar").is_disabled()
    page.wait_for_function("document.querySelector(\"section[data-exercise='nivel-2'] .exercise-summary\").textContent.length > 0",
                           timeout=60_000)
    assert section.locator(".exercise-summary").inner_text() == ALL_PASS
    page.wait_for_timeout(500)
    assert page.evaluate("window.__calls") == calls + 1  # never lost, never twice
    assert state(page)["booted"]["restored"]
    assert recorder.console_errors == []


def test_parar_during_a_restore_cancels_the_waiting_check_and_the_restore_goes_on(context, host):
    recorder = Recorder(context)
    page = context.new_page()
    page.goto(host.url + "licao-2/")
    stop_into_a_slow_restore(page, 3000)
    calls = page.evaluate("window.__calls")
    section = widget(page, "nivel-2")
    assert verify_then_stop(page, "nivel-2") == STOPPED  # pressed while Python is being restored
    assert page.evaluate("window.__calls") == calls  # the cancelled check never reached Python
    wait_ready(page)
    assert section.locator(".exercise-status").inner_text() == "Python pronto."
    assert page.evaluate("window.__restores") == 1  # the restore under way was not begun again
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    assert recorder.console_errors == []


def test_a_stale_snapshot_is_cleared_by_the_site_update_and_replaced(context, host):
    page, stored = visit_and_store(context, host.url)
    page.wait_for_function(CONTROLLED, timeout=20_000)
    # What an older build left: the same record under another graders digest.
    old_key = stored["key"].rsplit(" ", 1)[0] + " " + "0" * 64
    raw_put(page, f"r => ({{...r, key: {json.dumps(old_key)}}})")
    assert page.evaluate(STORED)["key"] == old_key
    page.close()
    # A site update: a new service worker, which takes over once the old pages are gone.
    sw = host.directory / "sw.js"
    sw.write_text(sw.read_text(encoding="utf-8").replace('{"version":"', '{"version":"x', 1), encoding="utf-8")
    page = context.new_page()
    page.goto(host.url)
    wait_until(page, "navigator.serviceWorker.getRegistration().then(r => !!r.waiting)")
    page.close()
    page = context.new_page()
    page.goto(host.url)
    wait_until(page, "navigator.serviceWorker.getRegistration().then(r => !r.waiting && !!r.active)")
    # The new worker deleted the stale record on activation.
    wait_until(page, f"() => ({STORED})().then(r => r === null || r.key !== {json.dumps(old_key)})")
    page.close()
    page = revisit(context, host.url)
    assert state(page)["booted"]["fresh"]
    stored = wait_until(page, STORED, timeout_s=60)
    assert stored["key"] == build_key(host) and stored["intact"]


def test_a_corrupted_stored_snapshot_boots_plain_and_is_replaced(context, host):
    page, stored = visit_and_store(context, host.url)
    # One byte flipped in the heap, digest left as it was (a disk or a browser bug did it).
    raw_put(page, """async r => { const b = new Uint8Array(await r.blob.arrayBuffer()); b[b.length >> 1] ^= 0xff;
        return {...r, blob: new Blob([b])}; }""")
    assert page.evaluate(STORED)["intact"] is False
    page.close()
    page = revisit(context, host.url)
    assert state(page)["booted"]["fresh"]
    replaced = wait_until(page, f"() => ({STORED})().then(r => r && r.intact && r.digest !== {json.dumps(stored['digest'])} && r)",
                          timeout_s=60)
    assert replaced["key"] == stored["key"]


def test_a_snapshot_of_another_pyodide_build_boots_plain_and_is_replaced(context, host):
    page, stored = visit_and_store(context, host.url)
    # The header's build id changed (another Pyodide build), with a digest that matches it: only
    # Pyodide's own check on restore tells, and the worker then boots from scratch.
    page.evaluate(f"""async () => {{ const m = await {STORE}; const r = await m.readSnapshot();
        const b = new Uint8Array(await r.blob.arrayBuffer()); b[16] ^= 0xff;
        await m.writeSnapshot({{key: r.key, blob: new Blob([b])}}); }}""")
    tampered = page.evaluate(STORED)
    assert tampered["intact"] and tampered["digest"] != stored["digest"]
    page.close()
    page = revisit(context, host.url)
    assert state(page)["booted"]["fresh"]
    replaced = wait_until(page, f"() => ({STORED})().then(r => r && r.intact && r.digest !== {json.dumps(tampered['digest'])} && r)",
                          timeout_s=60)
    assert replaced["key"] == stored["key"]
    # And the replacement restores on the next visit.
    page.close()
    page = revisit(context, host.url)
    assert state(page)["booted"]["stored"]


def test_parar_while_the_snapshot_is_being_stored_does_not_cut_the_store_short(context, host):
    # The store has a worker of its own (snapshot-writer.js): Parar, which replaces the Python worker,
    # leaves it alone. Its message is held here for 5 s, so Parar comes while it is pending.
    recorder = Recorder(context)
    page = context.new_page()
    page.add_init_script(HOLD_WRITER)
    page.goto(host.url + "licao-2/")
    grade_solution(page)
    wait_until(page, "() => window.__writers === 1", timeout_s=60)
    set_code(page, "nivel-2", INFINITE)
    assert verify_then_stop(page, "nivel-2") == STOPPED  # not isolated: a new Python worker, restored
    assert page.evaluate("window.__restores") == 1
    stored = wait_until(page, f"() => ({STORED})().then(r => r && r.intact && r)", timeout_s=60)
    assert stored["key"] == build_key(host) and stored["form"] == "blob"
    assert page.evaluate(f"{RUNTIME}.then(r => r.stored)") == "blob" and page.evaluate("window.__writers") == 1
    page.close()
    page = revisit(context, host.url)
    assert state(page)["booted"] == {"fresh": False, "restored": True, "stored": True}
    assert recorder.console_errors == []


def test_a_browser_that_refuses_blobs_keeps_the_snapshot_as_bytes_and_restores_it(context, host):
    store_js = host.directory / "assets" / "javascripts" / "lesson" / "snapshot-store.js"
    store_js.write_text(REFUSE_BLOBS + store_js.read_text(encoding="utf-8"), encoding="utf-8")
    recorder = Recorder(context)
    page, stored = visit_and_store(context, host.url)
    assert stored["form"] == "bytes" and stored["key"] == build_key(host)
    assert page.evaluate(f"{RUNTIME}.then(r => r.stored)") == "bytes"
    page.wait_for_function(CONTROLLED, timeout=20_000)
    page.close()
    page = revisit(context, host.url)
    assert state(page)["booted"] == {"fresh": False, "restored": True, "stored": True}
    # The page's next Python restores from the Blob the worker made of those bytes.
    set_code(page, "nivel-2", SWALLOWS_EVERY_INTERRUPT)
    assert verify_then_stop(page, "nivel-2") == STOPPED
    wait_ready(page)
    assert page.evaluate("window.__restores") == 1 and state(page)["booted"]["restored"]
    set_code(page, "nivel-2", SOLUTION)
    assert verify(page, "nivel-2") == ALL_PASS
    # Damaged bytes, digest left as it was: a fresh boot, and intact bytes replace them.
    raw_put(page, "r => { const b = r.bytes.slice(); b[b.length >> 1] ^= 0xff; return {...r, bytes: b}; }")
    assert page.evaluate(STORED)["intact"] is False
    page.close()
    page = revisit(context, host.url)
    assert state(page)["booted"]["fresh"]
    replaced = wait_until(page, f"() => ({STORED})().then(r => r && r.intact && r)", timeout_s=60)
    assert replaced["form"] == "bytes" and replaced["digest"] != stored["digest"]  # a new boot's snapshot
    assert recorder.console_errors == []


def test_a_snapshot_the_browser_refuses_is_a_warning_and_the_next_visit_boots_afresh(context, host):
    # Storage full, say: every put fails. The page goes on, and says why in a console warning.
    store_js = host.directory / "assets" / "javascripts" / "lesson" / "snapshot-store.js"
    store_js.write_text("IDBObjectStore.prototype.put = function () {"
                        " throw new DOMException('quota exceeded', 'QuotaExceededError'); };\n"
                        + store_js.read_text(encoding="utf-8"), encoding="utf-8")
    recorder = Recorder(context)
    warnings = []
    context.on("page", lambda p: p.on("console", lambda m: m.type == "warning" and warnings.append(m.text)))
    page = context.new_page()
    page.goto(host.url + "licao-2/")
    grade_solution(page)
    wait_until(page, f"() => {RUNTIME}.then(r => r.stored === false)", timeout_s=60)
    assert any("QuotaExceededError: quota exceeded" in w for w in warnings), warnings
    assert page.evaluate(STORED) is None
    page.close()
    page = revisit(context, host.url)
    assert state(page)["booted"]["fresh"]
    assert recorder.console_errors == []
