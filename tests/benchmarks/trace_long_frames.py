"""Benchmark helper (not a test): what the main thread does in the long tasks after the first paint.

    python tests/benchmarks/trace_long_frames.py SITE_DIR [RUNS] [--scroll] [--json OUT]

The same first visit as bench_long_tasks.py (390×844 touch phone, CPU 4× slower, gzip, a tap on
the text every 2.5 s, optionally a scroll 2 s after the first paint), watched for 12 s with a
Chromium trace (CDP Tracing, devtools.timeline categories with invalidation tracking). For each
main-thread task of ≥ 50 ms after the first contentful paint it prints its parts: style recalcs
(with element counts), layouts (dirty/total objects), parsing, scripts (with their URL and
function), and what invalidated style or layout before it (the tracker's reasons, nodes and
script frames). SITE_DIR is a built site (mkdocs build + sitebuild finish).
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lighthouse import CHROMIUM, PAGE  # noqa: E402
from bench_long_tasks import ARGS, OBSERVE, PHONE, read_and_tap  # noqa: E402
from gzip_server import serve_gzip  # noqa: E402

WATCH_S = 12
CATEGORIES = ",".join([
    "devtools.timeline", "disabled-by-default-devtools.timeline", "disabled-by-default-devtools.timeline.frame",
    "disabled-by-default-devtools.timeline.invalidationTracking", "disabled-by-default-devtools.timeline.stack",
    "blink.user_timing", "loading", "v8.execute", "blink", "toplevel", "navigation", "renderer",
])
LONG_US = 50_000
CHILD_NAMES = {"UpdateLayoutTree", "Layout", "ParseHTML", "EvaluateScript", "FunctionCall", "v8.compileModule",
               "v8.evaluateModule", "TimerFire", "FireAnimationFrame", "EventDispatch", "Paint", "PrePaint",
               "Layerize", "ParseAuthorStyleSheet", "UpdateLayer", "HitTest", "RunMicrotasks", "v8.compile",
               "IntersectionObserverController::computeIntersections", "ScheduleStyleRecalculation",
               "ImageDecodeTask", "Decode Image", "ResourceReceivedData", "ResourceFinish", "V8.GC_SCAVENGER",
               "MajorGC", "MinorGC", "V8.GCFinalizeMC", "BlinkGC.AtomicPhase", "v8.run", "CommitLoad",
               "IsolatedSVGDocumentHost::IsolatedSVGDocumentHost", "SVGImage::DataChanged"}


def trace_once(browser, url: str, scroll: bool) -> tuple[list[dict], dict]:
    context = browser.new_context(**PHONE)
    context.add_init_script(OBSERVE)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    events: list[dict] = []
    done = []
    cdp.on("Tracing.dataCollected", lambda p: events.extend(p["value"]))
    cdp.on("Tracing.tracingComplete", lambda p: done.append(True))
    cdp.send("Tracing.start", {"categories": CATEGORIES, "transferMode": "ReportEvents"})
    page.goto(url)
    page.wait_for_function("performance.getEntriesByName('first-contentful-paint').length > 0")
    read_and_tap(page, scroll, WATCH_S)
    frames = {"fcp": page.evaluate("performance.getEntriesByName('first-contentful-paint')[0].startTime"),
              "frames": page.evaluate("__loaf")}
    cdp.send("Tracing.end")
    while not done:
        page.wait_for_timeout(100)
    context.close()
    return events, frames


def main_thread(events: list[dict]) -> tuple[int, int]:
    """(pid, tid) of the lesson page's renderer main thread: the one that painted its first content."""
    for e in events:
        if e.get("name") == "firstContentfulPaint":
            for m in events:
                if m.get("name") == "thread_name" and m["pid"] == e["pid"] and m["args"]["name"] == "CrRendererMain":
                    return e["pid"], m["tid"]
    raise SystemExit("no first contentful paint in the trace")


def frame_of(e: dict) -> str:
    data = e.get("args", {}).get("data") or e.get("args", {}).get("beginData") or {}
    stack = data.get("stackTrace") or []
    if not stack:
        return ""
    top = stack[0]
    return f"{top.get('url', '').split('/')[-1]}:{top.get('lineNumber')} {top.get('functionName') or '?'}"


# Chromium's renderer forces a style and layout of the document at these moments of the load
# (its form scan for autofill, among others: it measures the page's fields); no script is on the stack.
RENDERER_FORCES = {"RenderFrameImpl::DidDispatchDOMContentLoadedEvent": "forced at DOMContentLoaded (renderer)",
                   "RenderFrameImpl::didFinishLoad": "forced at load (renderer)"}


def forced_by(mine: list[dict], e: dict) -> str:
    """Which of the renderer's own load steps encloses `e`, if any."""
    for m in mine:
        if m.get("name") in RENDERER_FORCES and m.get("ph") == "X" and m["ts"] <= e["ts"] <= m["ts"] + m.get("dur", 0):
            return RENDERER_FORCES[m["name"]]
    return ""


def summarize(events: list[dict], loaf: dict | None = None) -> None:
    pid, tid = main_thread(events)
    mine = sorted((e for e in events if e.get("pid") == pid and e.get("tid") == tid and "ts" in e), key=lambda e: e["ts"])
    fcp = next(e["ts"] for e in mine if e.get("name") == "firstContentfulPaint")
    nav = next((e["ts"] for e in mine if e.get("name") in ("navigationStart", "markAsMainFrame")), fcp)
    # One event per task: Chromium nests RunTask inside ThreadControllerImpl::RunTask where it has both.
    outer = "ThreadControllerImpl::RunTask" if any(e.get("name") == "ThreadControllerImpl::RunTask" for e in mine) else "RunTask"
    tasks = [e for e in mine if e.get("name") == outer and e.get("ph") == "X" and e["ts"] >= fcp and e.get("dur", 0) >= LONG_US]
    invalidations = [e for e in mine if "Invalidation" in e.get("name", "") or e.get("name") in
                     ("ScheduleStyleRecalculation", "InvalidateLayout", "ScheduleStyleInvalidationTracking")]
    print(f"FCP at {(fcp - nav) / 1000:.0f} ms after navigation; {len(tasks)} tasks >= {LONG_US // 1000} ms after it")
    previous_end = fcp
    for task in tasks:
        start, end = task["ts"], task["ts"] + task["dur"]
        # CPU: the thread's own time (tdur). Chromium's 4x throttling counts in it, a busy machine's
        # waits do not: on a shared machine it is close to what a quiet one would give.
        print(f"\n== task at +{(start - fcp) / 1000:.0f} ms after FCP, {task['dur'] / 1000:.0f} ms "
              f"(CPU {task.get('tdur', 0) / 1000:.0f} ms)")
        parts = collections.defaultdict(float)
        for e in mine:
            if e.get("ph") != "X" or not (start <= e["ts"] < end) or e is task:
                continue
            name = e.get("name")
            if name not in CHILD_NAMES:
                continue
            args = e.get("args", {})
            dur = e.get("dur", 0) / 1000
            parts[name] += dur
            if dur < 3:
                continue
            detail = ""
            if name == "UpdateLayoutTree":
                detail = f"elements {args.get('elementCount')}"
            elif name == "Layout":
                b = args.get("beginData", {})
                detail = f"dirty {b.get('dirtyObjects')} / total {b.get('totalObjects')}, partial {b.get('partialLayout')}"
            elif name in ("EvaluateScript", "v8.compileModule", "v8.evaluateModule", "v8.compile"):
                d = args.get("data", {})
                detail = (d.get("url") or args.get("fileName") or "").split("/")[-1]
            elif name == "FunctionCall":
                d = args.get("data", {})
                detail = f"{(d.get('url') or '').split('/')[-1]}:{d.get('lineNumber')} {d.get('functionName')}"
            elif name == "ParseHTML":
                b = args.get("beginData", {})
                detail = f"lines {b.get('startLine')}-{args.get('endData', {}).get('endLine')}"
            elif name == "EventDispatch":
                detail = args.get("data", {}).get("type", "")
            stack = frame_of(e) or forced_by(mine, e)
            if e.get("tdur") is not None:
                detail = f"CPU {e['tdur'] / 1000:5.1f}  {detail}"
            print(f"   {name:28s} +{(e['ts'] - start) / 1000:6.1f} {dur:7.1f} ms  {detail}  {stack}")
        print("   totals: " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(parts.items(), key=lambda kv: -kv[1]) if v >= 2))
        # What marked style or layout dirty between the previous long task and the end of this one.
        reasons = collections.Counter()
        for e in invalidations:
            if previous_end <= e["ts"] < end:
                d = e.get("args", {}).get("data", {})
                why = d.get("reason") or d.get("changedClass") or d.get("changedAttribute") or d.get("changedId") or d.get("changedPseudo") or d.get("selectorPart") or ""
                reasons[(e["name"], str(why), d.get("nodeName", ""), frame_of(e))] += 1
        for (name, reason, node, frame), count in reasons.most_common(12):
            print(f"   invalidated: {count:4d}× {name} {reason or ''} {node[:50]} {frame}")
        previous_end = end
    if loaf:
        frames_by_loaf(mine, fcp, loaf)


def task_parts(mine: list[dict], task: dict) -> str:
    start, end = task["ts"], task["ts"] + task["dur"]
    parts = collections.defaultdict(float)
    for e in mine:
        if e.get("ph") == "X" and start <= e["ts"] < end and e is not task and e.get("name") in CHILD_NAMES:
            parts[e["name"]] += e.get("dur", 0) / 1000
    return ", ".join(f"{k} {v:.0f}" for k, v in sorted(parts.items(), key=lambda kv: -kv[1]) if v >= 1)


def frames_by_loaf(mine: list[dict], fcp_ts: float, loaf: dict) -> None:
    """Each long animation frame of >= 150 ms, with the main-thread tasks that made it up."""
    origin = fcp_ts - loaf["fcp"] * 1000  # trace microseconds at performance.now() == 0
    tasks = [e for e in mine if e.get("name") == "ThreadControllerImpl::RunTask" and e.get("ph") == "X"]
    for frame in loaf["frames"]:
        if frame["duration"] < 150 or frame["start"] < loaf["fcp"]:
            continue
        start, end = origin + frame["start"] * 1000, origin + (frame["start"] + frame["duration"]) * 1000
        scripts = ", ".join(f"{s['url']} {s['invoker'][:40]} {s['duration']:.0f}" for s in frame["scripts"]) or "sem script"
        print(f"\n## LoAF {frame['duration']:.0f} ms at +{frame['start'] - loaf['fcp']:.0f} ms after FCP "
              f"(style/layout {frame['layout']:.0f}): {scripts}")
        busy = 0.0
        for task in tasks:
            if start - 1000 <= task["ts"] < end and task["dur"] >= 1000:
                busy += task["dur"] / 1000
                if task["dur"] >= 4000:
                    print(f"   task +{(task['ts'] - start) / 1000:6.0f} {task['dur'] / 1000:6.1f} ms  {task_parts(mine, task)}")
        print(f"   main thread busy {busy:.0f} ms of {frame['duration']:.0f}")


def main() -> None:
    site = Path(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 1
    scroll = "--scroll" in sys.argv
    out = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    server, base = serve_gzip(site)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        for run in range(runs):
            events, loaf = trace_once(browser, base + PAGE, scroll)
            if out:
                Path(f"{out}.{run}.json").write_text(json.dumps({"traceEvents": events, "loaf": loaf}))
            print(f"######## run {run + 1} ({'com' if scroll else 'sem'} rolagem)")
            summarize(events, loaf)
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
