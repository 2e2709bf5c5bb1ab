"""Benchmark (not a test): the cost of one hand-off to reduced mode's look thread
(graders/trace/kernel/lookthread.py), against two threading.Lock objects used as signals.

    python tests/benchmarks/bench_lookthread.py [N]

Prints the median over 5 rounds of N round trips each, in microseconds per round trip.
"""

from __future__ import annotations

import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from graders.trace.kernel.lookthread import LookThread  # noqa: E402


def _identity(value):
    return value


class _Locks:
    def __init__(self):
        self.go, self.done = threading.Lock(), threading.Lock()
        self.go.acquire()
        self.done.acquire()
        self.job = None
        threading.Thread(target=self._serve, daemon=True).start()

    def call(self, fn, *args):
        self.job = (fn, args)
        self.go.release()
        self.done.acquire()
        return self.job

    def _serve(self):
        while True:
            self.go.acquire()
            fn, args = self.job
            self.job = fn(*args)
            self.done.release()


def _rounds(caller, n: int) -> float:
    times = []
    for _ in range(5):
        start = time.perf_counter()
        for i in range(n):
            caller.call(_identity, i)
        times.append((time.perf_counter() - start) / n * 1e6)
    return statistics.median(times)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    thread = LookThread(None)
    try:
        print(f"pipes (LookThread): {_rounds(thread, n):.1f} µs por ida e volta")
    finally:
        thread.close()
    print(f"dois threading.Lock: {_rounds(_Locks(), n):.1f} µs por ida e volta")


if __name__ == "__main__":
    main()
