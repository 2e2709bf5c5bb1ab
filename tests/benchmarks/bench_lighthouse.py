"""Benchmark (not a test): Lighthouse mobile on the lesson page, served with gzip as hosts do.

    python tests/benchmarks/bench_lighthouse.py [RUNS] [SITE_DIR]

Builds the site (`mkdocs build --strict` + the post-build step) into a temporary folder, unless
SITE_DIR names a built one, serves it with gzip (gzip_server.py) and runs Lighthouse 12 (the npm
devDependency, offline) RUNS times (default 3) with its mobile defaults: simulated slow 4G and a
4× slower CPU (`--throttling-method=simulate`). Prints the medians of the performance and
accessibility scores, first contentful paint, largest contentful paint, total blocking time and
speed index, the audits that failed, and a last line `JSON: {...}` for the README.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from gzip_server import serve_gzip  # noqa: E402

LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
RUNS = 3
PAGE = "licao-2/"
GOALS = {"performance": 0.9, "fcp_s": 1.8, "accessibility": 0.95}
METRICS = {"fcp_s": "first-contentful-paint", "lcp_s": "largest-contentful-paint",
           "tbt_s": "total-blocking-time", "si_s": "speed-index"}
# The same quiet Chromium as the browser tests (no background traffic; other origins fail fast).
CHROME_FLAGS = ("--headless=new --no-sandbox --disable-gpu --no-first-run --disable-background-networking "
                "--disable-component-update --disable-sync")


def build(site: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "--site-dir", str(site)],
                   cwd=ROOT, check=True, env=env)


def lighthouse(url: str, out: Path) -> dict:
    subprocess.run(
        [str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={out}",
         "--only-categories=performance,accessibility", "--form-factor=mobile",
         "--throttling-method=simulate", "--disable-full-page-screenshot", "--max-wait-for-load=60000",
         f"--chrome-flags={CHROME_FLAGS}"],
        check=True, env={**os.environ, "CHROME_PATH": CHROMIUM}, cwd=ROOT, timeout=300)
    return json.loads(out.read_text(encoding="utf-8"))


def figures(report: dict) -> dict:
    audits = report["audits"]
    result = {name: report["categories"][name]["score"] for name in ("performance", "accessibility")}
    for key, audit in METRICS.items():
        result[key] = audits[audit]["numericValue"] / 1000
    result["dom_elements"] = audits.get("dom-size", {}).get("numericValue")
    result["failed"] = sorted(
        a["id"] for a in audits.values()
        if a.get("score") is not None and a["score"] < 0.9 and a.get("scoreDisplayMode") in {"binary", "metricSavings", "numeric"})
    return result


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else RUNS
    if not LIGHTHOUSE.exists():
        sys.exit("Lighthouse não está instalado: rode `npm ci` (ou `make setup`).")
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tmp) / "site"
        if len(sys.argv) <= 2:
            build(site)
        server, base = serve_gzip(site)
        try:
            reports = [figures(lighthouse(base + PAGE, Path(tmp) / f"lh-{i}.json")) for i in range(runs)]
        finally:
            server.shutdown()
            server.server_close()
    summary = {key: round(statistics.median(r[key] for r in reports), 3)
               for key in ("performance", "accessibility", *METRICS, "dom_elements")}
    summary["runs"] = runs
    summary["failed_audits"] = sorted({a for r in reports for a in r["failed"]})
    print(f"Lighthouse 12, celular (4G lento simulado, CPU 4× mais lenta), {PAGE} com gzip; medianas de {runs}:")
    print(f"  desempenho {summary['performance']:.2f} (meta ≥ {GOALS['performance']}), "
          f"acessibilidade {summary['accessibility']:.2f} (meta ≥ {GOALS['accessibility']})")
    print(f"  FCP {summary['fcp_s']:.2f} s (meta ≤ {GOALS['fcp_s']} s), LCP {summary['lcp_s']:.2f} s, "
          f"TBT {summary['tbt_s'] * 1000:.0f} ms, speed index {summary['si_s']:.2f} s, "
          f"{summary['dom_elements']:.0f} elementos no DOM")
    print("  auditorias abaixo de 0,9:", ", ".join(summary["failed_audits"]) or "nenhuma")
    print("JSON: " + json.dumps(summary, ensure_ascii=False))


if __name__ == "__main__":
    main()
