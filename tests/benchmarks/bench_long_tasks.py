"""Benchmark (not a test): main-thread long tasks and tap delays on the lesson, slow phone profile.

    python tests/benchmarks/bench_long_tasks.py [RUNS] [SITE_DIR]

Builds the site into a temporary folder unless SITE_DIR names a built one, serves it with gzip
(gzip_server.py) and, RUNS times (default 5) in a fresh Chromium context each (first visit):
390×844 touch phone, CPU 4× slower (CDP Emulation.setCPUThrottlingRate), the lesson opened, and
for 30 s a tap on the lesson's text every 2.5 s, with or without a scroll 2 s after the first paint.
Records long tasks after the first contentful paint (PerformanceObserver `longtask`) and each tap's
Event Timing duration (`pointerdown`/`pointerup`/`click`). Prints per scenario the medians over
the runs of the longest task and of the slowest tap, and a last line `JSON: {...}` for the README.
"""

from __future__ import annotations

import json
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
window.__long = []; window.__taps = [];
new PerformanceObserver(l => { for (const e of l.getEntries()) __long.push([e.startTime, e.duration]); })
  .observe({type: 'longtask', buffered: true});
new PerformanceObserver(l => { for (const e of l.getEntries())
  if (['pointerdown', 'pointerup', 'click'].includes(e.name)) __taps.push([e.name, e.startTime, e.duration]); })
  .observe({type: 'event', durationThreshold: 16, buffered: true});
"""


def one_run(browser, url: str, scroll: bool) -> dict:
    context = browser.new_context(**PHONE)
    context.add_init_script(OBSERVE)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    page.goto(url)
    page.wait_for_function("performance.getEntriesByName('first-contentful-paint').length > 0")
    fcp = page.evaluate("performance.getEntriesByName('first-contentful-paint')[0].startTime")
    taps = 0
    elapsed = 0.0
    while elapsed < WATCH_S:
        if scroll and taps == 0:
            page.wait_for_timeout(2000)
            page.mouse.wheel(0, 600)
            elapsed += 2
        # A tap on plain text, where a reader rests a finger: nothing to do but answer it.
        page.touchscreen.tap(200, 500)
        taps += 1
        page.wait_for_timeout(TAP_EVERY_S * 1000)
        elapsed += TAP_EVERY_S
    long_tasks = [d for start, d in page.evaluate("__long") if start >= fcp]
    tap_delays = [d for _, _, d in page.evaluate("__taps")]
    context.close()
    return {"longest_task_ms": max(long_tasks, default=0), "slowest_tap_ms": max(tap_delays, default=0),
            "long_tasks": len(long_tasks)}


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else RUNS
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tmp) / "site"
        if len(sys.argv) <= 2:
            build(site)
        server, base = serve_gzip(site)
        results = {}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            for scroll in (False, True):
                name = "com rolagem" if scroll else "sem rolagem"
                samples = [one_run(browser, base + PAGE, scroll) for _ in range(runs)]
                results[name] = {key: statistics.median(s[key] for s in samples) for key in samples[0]}
                print(name, [(round(s["longest_task_ms"]), round(s["slowest_tap_ms"])) for s in samples], flush=True)
            browser.close()
        server.shutdown()
    for name, figures in results.items():
        print(f"{name}: tarefa mais longa {figures['longest_task_ms']:.0f} ms, toque mais lento "
              f"{figures['slowest_tap_ms']:.0f} ms, {figures['long_tasks']:.0f} tarefas longas (medianas de {runs})")
    print("JSON: " + json.dumps(results))


if __name__ == "__main__":
    main()
