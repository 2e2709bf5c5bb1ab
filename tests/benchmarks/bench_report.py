"""Benchmark (not a test): how long each --format takes to render the class report of a big class.

    python tests/benchmarks/bench_report.py [N]

Grades three real submissions once (a complete export, the nivel-2 starter with its crash timeline,
a quiz-only export), builds the class report of N students (default 500) cycling through them, with
a roster of N people and some copies, and times building the report and rendering every format
(median of 5 runs each). Timings are noisy: read medians.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from graders.cli import classreport, formats, metadata, options  # noqa: E402
from graders.cli.report import normalise  # noqa: E402
from graders.cli.roster import Person  # noqa: E402
from graders.grading import grade  # noqa: E402
from graders.submission import export_entries, from_python  # noqa: E402

RUNS = 5


def _graded_rows() -> list[dict]:
    answers = (ROOT / "tests" / "corpus" / "respostas" / "tudo_certo.json").read_text(encoding="utf-8")
    _, complete = export_entries(answers)
    starter = from_python((ROOT / "exercises" / "nivel-2" / "starter.py").read_text(encoding="utf-8"))
    rows = []
    for kind, subs in (("export", complete), ("py", {"nivel-2": starter}),
                       ("export", {"quiz-sobrescrita": complete["quiz-sobrescrita"]})):
        results = {}
        for ex, sub in subs.items():
            verdict = grade(ex, sub).to_dict()
            verdict.pop("output", None)
            results[ex] = normalise({**verdict, "file": "x"})
        rows.append({"kind": kind, "results": results})
    return rows


def build(n: int, graded: list[dict]) -> dict:
    people = [Person(f"Aluno {i:04d} da Silva", f"aluno{i:04d}@usp.br", f"2026{i:05d}") for i in range(n)]
    rows = []
    for i in range(n - n // 10):  # a tenth of the class sends nothing
        base = graded[i % len(graded)]
        name = f"aluno{i:04d}@usp.br"
        ext = "json" if base["kind"] == "export" else "py"
        rows.append({"file": f"/turma/a{i:04d}/entrega.{ext}", "shown": f"a{i:04d}/entrega.{ext}",
                     "student": name if ext == "json" else None, "kind": base["kind"], "results": base["results"]})
    copies = [{"exercise": "nivel-2", "kind": "idêntico", "score": 1.0, "identical": [], "same_as_reference": [],
               "members": [{"file": rows[i]["shown"], "student": None}, {"file": rows[i + 3]["shown"], "student": None}]}
              for i in range(0, min(60, len(rows) - 3), 6)]
    meta = metadata.describe(True, False, list(options.exercises.EXERCISE_IDS))
    return classreport.build(rows, list(options.exercises.EXERCISE_IDS), "todos", meta, copies, people=people)


def median_seconds(work) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    graded = _graded_rows()
    report = build(n, graded)
    print(f"{n} alunos ({sum(1 for s in report['students'] if s['files'])} com entrega); mediana de {RUNS} rodadas")
    print(f"  montar o relatório da turma: {median_seconds(lambda: build(n, graded)):.3f} s")
    for fmt in formats.MODULES:
        size = len(formats.render(fmt, report).encode("utf-8"))
        print(f"  --format {fmt:8}: {median_seconds(lambda: formats.render(fmt, report)):.3f} s ({size / 1e6:.1f} MB)")
    json.loads(formats.render("json", report))  # the big document is still one valid JSON


if __name__ == "__main__":
    main()
