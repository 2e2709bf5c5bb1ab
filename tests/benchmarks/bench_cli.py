"""Benchmark (not a test): how fast the CLI grades a class of submissions on CPython.

    python tests/benchmarks/bench_cli.py [N] [auto|estrito|reduzido|conteiner]

Grades N submissions (default 200), cycling through the nivel-2 corpus, with one
`python -m graders` run, and times N bare `python -c pass` starts run two at a time
in the same benchmark run, just before and just after the ordinary class: the ratio between the two
is the figure to compare.
Also reports the median time one submission takes on its own. Timings are noisy:
read medians and ratios. The second argument is the CLI's --isolamento (default auto), or
`conteiner`: `auto` under a filter that refuses namespaces as Docker does (tests/no_namespaces.py),
so the CLI falls back to reduced mode as it would in a container.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted(p for p in (ROOT / "tests" / "corpus" / "nivel-2").glob("*.py") if "cli-only" not in p.read_text())
# Ordinary submissions: the honest corpus (correct code written in different ways)...
HONEST = [p for p in CORPUS if p.name.startswith("ok_")]
# ...and, with it, the buggy code a class hands in: everything but the files that attack the grader
# or never end (an infinite loop costs the time limit, whatever the design).
HOSTILE = ("tamper", "gc_objects", "frames", "js_bridge", "disables", "edits_the_script", "unhooks",
           "infinite", "retries_forever", "exit", "syntax_error")
ORDINARY = [p for p in CORPUS if not any(word in p.name for word in HOSTILE)]


ISOLATION = sys.argv[2] if len(sys.argv) > 2 else "auto"


CONTAINER = [sys.executable, str(ROOT / "tests" / "no_namespaces.py")] if ISOLATION == "conteiner" else []


CPU: dict[str, float] = {}  # CPU seconds of each measure (getrusage of the children), by name


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_cli(files: list[Path], name: str = "") -> float:
    """Wall-clock seconds; the CPU time of the CLI and every process it waited for goes to CPU[name]
    (under bubblewrap, what runs inside the sandbox is not counted: only reduced mode's is whole)."""
    start, cpu = time.perf_counter(), _cpu()
    subprocess.run([*CONTAINER, sys.executable, "-m", "graders", "nivel-2", *map(str, files), "--format", "json",
                    "--isolamento", "auto" if CONTAINER else ISOLATION],
                   cwd=ROOT, capture_output=True, check=False)
    if name:
        CPU[name] = _cpu() - cpu
    return time.perf_counter() - start


def bare_starts(count: int) -> float:
    """N interpreter starts, two at a time: the floor any per-submission process pays."""
    from concurrent.futures import ThreadPoolExecutor

    start, cpu = time.perf_counter(), _cpu()
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda _: subprocess.run([sys.executable, "-c", "pass"], check=True), range(count)))
    CPU["bare"] = _cpu() - cpu
    return time.perf_counter() - start


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory() as tmp:
        def class_of(prefix: str, sources: list[Path]) -> list[Path]:
            """`count` submission files named like a class's, cycling through `sources`."""
            files = []
            for i in range(count):
                target = Path(tmp) / f"{prefix}_{i:03d}.py"
                target.write_text(sources[i % len(sources)].read_text())
                files.append(target)
            return files

        # The floor is measured just before and just after the goal's run, and averaged: this
        # machine's speed drifts by a third within minutes, and a floor taken once, a minute
        # away from the run it divides, carried that drift into the ratio.
        before, cpu_before = bare_starts(count), CPU["bare"]
        ordinary = run_cli(class_of("comum", ORDINARY), "ordinary")
        after = bare_starts(count)
        bare, CPU["bare"] = (before + after) / 2, (cpu_before + CPU["bare"]) / 2
        whole = run_cli(class_of("aluno", CORPUS), "whole")
        honest = run_cli(class_of("honesto", HONEST), "honest")
        reference = run_cli(class_of("referencia", [ROOT / "exercises" / "nivel-2" / "solution.py"]), "reference")
        singles = [run_cli([CORPUS[i % len(CORPUS)]]) for i in range(15)]
    print(f"isolamento: {ISOLATION}")
    print(f"{count} submissões em {whole:.1f} s: {count / whole:.1f} submissões/s "
          f"(corpus nivel-2, {len(CORPUS)} arquivos distintos, {os.cpu_count()} núcleos)")
    print(f"{count} submissões corretas comuns (corpus honesto, {len(HONEST)} arquivos distintos) em {honest:.1f} s: "
          f"{count / honest:.1f} submissões/s")
    print(f"{count} submissões comuns, corretas e com erros (corpus sem as hostis, {len(ORDINARY)} arquivos distintos) "
          f"em {ordinary:.1f} s: {count / ordinary:.1f} submissões/s")
    print(f"{count} cópias da solução de referência em {reference:.1f} s: {count / reference:.1f} submissões/s")
    print(f"{count} partidas de `python -c pass`, duas a duas: {bare:.1f} s (média de {before:.1f} s antes e "
          f"{after:.1f} s depois das comuns); razão: {ordinary / bare:.2f}× (comuns; meta ≤ 2×), "
          f"{honest / bare:.2f}× (corretas comuns), {reference / bare:.2f}× (referência), "
          f"{whole / bare:.2f}× (corpus inteiro, com as hostis e os laços infinitos)")
    print(f"tempo de CPU (getrusage dos filhos): piso {CPU['bare']:.2f} s; comuns {CPU['ordinary']:.2f} s "
          f"({CPU['ordinary'] / CPU['bare']:.2f}×), corretas comuns {CPU['honest'] / CPU['bare']:.2f}×, "
          f"referência {CPU['reference'] / CPU['bare']:.2f}×"
          + (" — no bubblewrap, o que roda dentro do sandbox não entra na conta" if ISOLATION != "conteiner"
             and ISOLATION != "reduzido" else ""))
    print(f"mediana de uma submissão sozinha (processo da CLI incluído): {statistics.median(singles) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
