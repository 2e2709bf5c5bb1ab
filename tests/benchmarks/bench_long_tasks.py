"""Benchmark (not a test): what blocks the main thread after the first paint, slow phone profile.

    python tests/benchmarks/bench_long_tasks.py [RUNS] [SITE_DIR] [--bare]

Builds the site into a temporary folder unless SITE_DIR names a built one, serves it with gzip
(gzip_server.py) and, RUNS times (default 5) in a fresh Chromium context each (first visit):
390×844 touch phone, CPU 4× slower (CDP Emulation.setCPUThrottlingRate), the lesson opened, and
for 30 s a tap on the lesson's text every 2.5 s, with or without a scroll 2 s after the first paint.
Records after the first contentful paint: long tasks (PerformanceObserver `longtask`), Long
Animation Frames (`long-animation-frame`: also the frames that are all style and layout, which no
long task reports, with each frame's scripts) and each tap's Event Timing duration (`event`,
durationThreshold 16; a tap is its pointerdown/pointerup/click, the slowest of them). Prints per
scenario the medians over the runs of the longest task, the longest frame and the slowest tap, the
costliest frames with their scripts, and a last line `JSON: {...}` for the README.

--bare serves a copy of the site whose pages have every <script> removed (inline and external):
the same HTML and CSS with nothing of ours or the theme's running, so what is left is the browser's
own parsing, style, layout and paint of the page. With no script at all, Chromium often lays the
whole page out before its first paint, which a page with any deferred script does not get (see
the README's "The phone's longest task"): compare with traces, not with this figure alone.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lighthouse import CHROMIUM, PAGE, build  # noqa: E402
from gzip_server import serve_gzip  # noqa: E402

RUNS = 5
WATCH_S = 30
TAP_EVERY_S = 2.5
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 3}
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
OBSERVE = """
window.__long = []; window.__loaf = []; window.__taps = [];
new PerformanceObserver(l => { for (const e of l.getEntries()) __long.push([e.startTime, e.duration]); })
  .observe({type: 'longtask', buffered: true});
try {
  new PerformanceObserver(l => { for (const e of l.getEntries()) __loaf.push({
      start: e.startTime, duration: e.duration, blocking: e.blockingDuration,
      // Style and layout of the frame: from its style-and-layout start to its end.
      layout: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0,
      scripts: e.scripts.map(s => ({url: (s.sourceURL || '').split('/').slice(-2).join('/'),
                                    invoker: s.invoker, duration: s.duration,
                                    layout: s.forcedStyleAndLayoutDuration}))}); })
    .observe({type: 'long-animation-frame', buffered: true});
} catch (e) {}
new PerformanceObserver(l => { for (const e of l.getEntries())
  if (['pointerdown', 'pointerup', 'click'].includes(e.name))
    __taps.push([e.name, e.startTime, e.duration, e.interactionId]); })
  .observe({type: 'event', durationThreshold: 16, buffered: true});
"""


def read_and_tap(page, scroll: bool, seconds: float) -> int:
    """A reader for `seconds`: a tap on plain text every TAP_EVERY_S (where a reader rests a finger:
    nothing to do but answer it), after a scroll 2 s in when `scroll`; returns the taps made."""
    taps = 0
    elapsed = 0.0
    while elapsed < seconds:
        if scroll and taps == 0:
            page.wait_for_timeout(2000)
            page.mouse.wheel(0, 600)
            elapsed += 2
        page.touchscreen.tap(200, 500)
        taps += 1
        page.wait_for_timeout(TAP_EVERY_S * 1000)
        elapsed += TAP_EVERY_S
    return taps

def one_run(browser, url: str, scroll: bool) -> dict:
    context = browser.new_context(**PHONE)
    context.add_init_script(OBSERVE)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    page.goto(url)
    page.wait_for_function("performance.getEntriesByName('first-contentful-paint').length > 0")
    fcp = page.evaluate("performance.getEntriesByName('first-contentful-paint')[0].startTime")
    read_and_tap(page, scroll, WATCH_S)
    long_tasks = [d for start, d in page.evaluate("__long") if start >= fcp]
    frames = [f for f in page.evaluate("__loaf") if f["start"] >= fcp]
    per_tap: dict = {}
    for _, start, duration, interaction in page.evaluate("__taps"):
        key = interaction or start
        per_tap[key] = max(per_tap.get(key, 0), duration)
    context.close()
    return {"longest_task_ms": max(long_tasks, default=0), "longest_frame_ms": max((f["duration"] for f in frames), default=0),
            "slowest_tap_ms": max(per_tap.values(), default=0), "long_tasks": len(long_tasks),
            "long_frames": len(frames), "_frames": frames}


def describe(frame: dict) -> str:
    scripts = ", ".join(f"{s['url'] or '?'} {s['invoker']} {s['duration']:.0f} ms" for s in frame["scripts"]) or "sem script"
    return f"{frame['duration']:.0f} ms (estilo/layout {frame['layout']:.0f} ms) em {frame['start'] / 1000:.1f} s: {scripts}"


SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.S | re.I)


def bare_copy(site: Path, into: Path) -> Path:
    """`site` copied into `into` with every page's scripts removed (Pyodide's folder left out)."""
    shutil.copytree(site, into, ignore=shutil.ignore_patterns("pyodide"))
    for page in into.rglob("*.html"):
        page.write_text(SCRIPT.sub("", page.read_text(encoding="utf-8")), encoding="utf-8")
    return into


def main() -> None:
    bare = "--bare" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--bare"]
    runs = int(args[0]) if args else RUNS
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(args[1]) if len(args) > 1 else Path(tmp) / "site"
        if len(args) <= 1:
            build(site)
        if bare:
            site = bare_copy(site, Path(tmp) / "bare")
        server, base = serve_gzip(site)
        results = {}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            for scroll in (False, True):
                name = "com rolagem" if scroll else "sem rolagem"
                samples = [one_run(browser, base + PAGE, scroll) for _ in range(runs)]
                results[name] = {key: statistics.median(s[key] for s in samples) for key in samples[0]
                                 if not key.startswith("_")}
                print(name, [(round(s["longest_task_ms"]), round(s["longest_frame_ms"]), round(s["slowest_tap_ms"]))
                             for s in samples], flush=True)
                # What the costliest frames of every run spent their time on.
                for s in samples:
                    for frame in sorted(s["_frames"], key=lambda f: -f["duration"])[:3]:
                        print("   ", describe(frame), flush=True)
            browser.close()
        server.shutdown()
    for name, figures in results.items():
        print(f"{name}: tarefa mais longa {figures['longest_task_ms']:.0f} ms, quadro mais longo "
              f"{figures['longest_frame_ms']:.0f} ms, toque mais lento {figures['slowest_tap_ms']:.0f} ms, "
              f"{figures['long_tasks']:.0f} tarefas longas, {figures['long_frames']:.0f} quadros longos (medianas de {runs})"
              + (", página sem scripts" if bare else ""))
    print("JSON: " + json.dumps(results))


if __name__ == "__main__":
    main()
