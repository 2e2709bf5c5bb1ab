"""Ground truth for the replay: real SIGKILLs, injected by strace at every file-system syscall (and
inside every tool and model call) of nivel-2 corpus submissions run for real, leave on disk exactly the
states the grader derives from its one traced run (graders.replay, killed-process model)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import ROOT
from corpus_cases import all_cases
from run_real import MARKER_DIR, RESULT_PREFIX

RUNNER = ROOT / "tests" / "ground_truth" / "run_real.py"
STRACE = "/usr/bin/strace"
CHECKPOINT = "checkpoint.json"
CRITERIA = ("escrita-atomica", "ponto-a")
RUN_TIMEOUT = 30  # seconds, per traced process

# Every syscall that can change a file's bytes or a folder's entries, plus the marker (getxattr).
# "?" lets strace skip a name this architecture does not have (open, rename... on arm64).
TRACED = (
    "?open,openat,?openat2,?creat,write,pwrite64,writev,?pwritev,?pwritev2,fsync,fdatasync,"
    "?sync_file_range,close,?rename,renameat,?renameat2,?unlink,unlinkat,?truncate,ftruncate,"
    "?fallocate,?mkdir,mkdirat,?rmdir,?link,?linkat,?symlink,?symlinkat,?sendfile,?copy_file_range,"
    "?splice,getxattr"
)
# Kill points: syscalls that take a path and change the folder...
PATH_CHANGES = {
    "rename", "renameat", "renameat2", "unlink", "unlinkat", "truncate", "mkdir", "mkdirat",
    "rmdir", "link", "linkat", "symlink", "symlinkat",
}
# ...and syscalls on a file descriptor, which count when it is a regular file.
FD_CHANGES = {
    "write", "pwrite64", "writev", "pwritev", "pwritev2", "fsync", "fdatasync", "sync_file_range",
    "ftruncate", "fallocate", "sendfile", "copy_file_range", "splice",
}
OPENS = {"open", "openat", "openat2", "creat"}
# Syscalls that put bytes into the file their (first) descriptor names: the ones a power loss can tear.
WRITES = {"write", "pwrite64", "writev", "pwritev", "pwritev2", "sendfile", "copy_file_range", "splice"}
WRITE_FLAGS = re.compile(r"\bO_(?:WRONLY|RDWR|CREAT|TRUNC|APPEND)\b")

# Corpus files left out, each after reading it. Hostile code (it tampers with the grader, exits,
# loops, raises, climbs frames) has no honest disk behaviour to compare; the others get a verdict
# that does not come from crash states, so a kill cannot confirm or refute it.
EXCLUDED = {
    # Runs that never reach a state to compare: they loop, exit, raise or do not load.
    "bad_exit_builtin_in_save": "exit() in the middle of the run",
    "bad_infinite_loop": "loops forever",
    "bad_no_run_agent": "no run_agent to run",
    "bad_os_exit_in_loop": "os._exit() at the end: run_real.py never sees run_agent return",
    "bad_raises": "raises inside run_agent",
    "bad_retries_forever": "retries forever",
    "bad_syntax_error": "does not compile",
    "bad_sys_exit_on_import": "sys.exit() on import",
    "bad_js_bridge": "imports Pyodide's js module: fails to load here",
    # Code aimed at the old in-process grader's objects: under run_real.py there is none to find, so the
    # run behaves differently from the graded one by design (the graded run is compared in tests/adversarial).
    "bad_disables_crash_plan": "hostile: reaches for grader objects",
    "bad_edits_the_script": "hostile: reaches for grader objects",
    "bad_gc_objects": "hostile: searches the grader's objects with gc",
    "bad_inspect_frames": "hostile: climbs frames to the grader",
    "bad_tamper_grader": "hostile: patches the grader",
    "bad_traceback_frames": "hostile: frames from a traceback",
    "bad_unhooks_audit": "hostile: silences an audit hook",
    "bad_walks_frames": "hostile: sys._getframe to the grader",
    # strace counts when= per thread: a kill cannot be aimed at a call of a worker thread.
    "ok_thread_saves": "saves from a worker thread, where strace's when= counts separately",
    # Its states hold time.time(): no two runs write the same bytes.
    "bad_extra_field": "writes a timestamp: the real and the graded run cannot hold the same bytes",
    # Rebinds json.loads for the whole process, which breaks run_real.py's own fakes (they share it).
    "bad_tamper_json_loads": "rebinds json.loads under run_real.py's in-process fakes",
    # EXDEV needs /tmp on another file system, as in the grader's sandbox; here it is not.
    "bad_tmp_hardcoded_in_tmp": "/tmp is another file system in the sandbox only",
    "bad_tmp_in_system_tmp": "/tmp is another file system in the sandbox only",
    "bad_tmp_scratch_move": "/tmp is another file system in the sandbox only",
    # Run for real they would write a fixed name in the machine's /tmp, shared by every run.
    "ok_tmp_scratch_copy_replace": "writes a fixed name in the machine's /tmp when run for real",
    "ok_tmp_log_hardcoded": "writes a fixed name in the machine's /tmp when run for real",
    "ok_link_to_dev_shm": "writes a fixed name in the machine's /dev/shm when run for real",
    "bad_link_to_dev_shm_in_place": "writes a fixed name in the machine's /dev/shm when run for real",
    # Stores through a shared mapping are no syscalls: strace can only kill before the ftruncate or after
    # the stores, where a real SIGKILL can land between them (the replay keeps that state, zeros and all).
    "bad_mmap_in_place": "mmap stores are not syscalls: strace cannot kill between the ftruncate and them",
    # strace's inject when= counts per thread and per process, and run_real.py's run ends when run_agent
    # returns: a kill cannot be aimed at a call of another thread or process, nor after the return.
    # The graded runs of these are compared in tests/adversarial (test_adv_outlives.py, test_adv_shm.py,
    # test_adv_mmap_threads.py) and judged in the corpus tests, in both isolation modes.
    "ok_mmap_with_threads": "its shared mapping is written by a worker thread (mmap stores, when= per thread)",
    "ok_mmap_read_with_threads": "a worker thread runs beside the saves (when= per thread)",
    "ok_mmap_read_verify_busy_thread": "a worker thread allocates beside the saves (when= per thread)",
    "bad_mmap_read_upgraded_with_threads": "its writes come from a worker thread (when= per thread)",
    "ok_threadpool_tools": "its tools run in a thread pool (when= per thread)",
    "ok_multiprocessing_pool": "saves from a Pool worker process (when= per process)",
    "bad_pool_saves_in_place": "saves from a Pool worker process (when= per process)",
    "bad_child_outlives_run_agent": "writes from a child after run_agent returned: run_real.py stops at the return",
    "bad_daemon_keeps_writing": "writes from a daemon after run_agent returned: run_real.py stops at the return",
    "ok_child_saves_atomically_after_return": "writes from a child after run_agent returned: run_real.py stops at the return",
    # Branches on a call the grader refuses (io_uring): for real it takes the other branch, by design.
    "bad_refused_call_then_atomic": "its real run writes in place (io_uring works here); the graded one cannot",
    # 228 kill points, one per line written: slow, and ok_line_buffered keeps the many-writes case.
    "bad_line_buffered_in_place": "slow and redundant: its first in-place write already differs from an atomic one",
}


def _selected():
    cases = [c for c in all_cases() if c.exercise == "nivel-2" and c.path.suffix == ".py"]
    return [c for c in cases if c.name not in EXCLUDED]


CASES = _selected()
# Kill runs are independent processes, run from one shared pool (strace and Python each take a core
# for part of a run); a few submissions are handled at once so that the pool never runs dry.
POOL = ThreadPoolExecutor(max_workers=max(2, (os.cpu_count() or 2) + 1))
SUBMISSIONS_AT_ONCE = 4


# --- running under strace ----------------------------------------------------------------------


@dataclass
class Traced:
    returncode: int
    lines: list[str]
    stdout: str
    stderr: str
    workdir: Path


def run_traced(submission: Path, base: Path, inject: str | None = None) -> Traced:
    """Run the submission in base/work (its TMPDIR in base/tmp), traced, maybe with a kill injected."""
    work, tmp = base / "work", base / "tmp"
    work.mkdir(parents=True)
    tmp.mkdir()
    trace = base / "trace.txt"
    cmd = [STRACE, "-f", "-qq", "-y", "-s", "48", "-o", str(trace), "-e", f"trace={TRACED}"]
    if inject:
        cmd += ["-e", f"inject={inject}"]
    # -S -B: no site, no bytecode written; a fixed hash seed: the same syscalls in every run.
    cmd += [sys.executable, "-S", "-B", str(RUNNER), str(submission.resolve())]
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "TMPDIR": str(tmp)}
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, timeout=RUN_TIMEOUT)
    lines = trace.read_text(encoding="utf-8", errors="replace").splitlines() if trace.exists() else []
    return Traced(proc.returncode, lines, proc.stdout.decode("utf-8", "replace"),
                  proc.stderr.decode("utf-8", "replace"), work)


LINE = re.compile(r"^\d+\s+(\w+)\((.*)\)\s+=\s+(.*)$")


@dataclass
class Call:
    name: str
    args: str
    ret: str
    nth: int  # the how-manieth call of this syscall since the process started (strace's when=)
    text: str


def parse(lines: list[str]) -> list[Call]:
    counts: dict[str, int] = {}
    calls = []
    for text in lines:
        m = LINE.match(text)
        if not m:
            continue  # "+++ exited +++", "--- SIGCHLD ---"
        name = m.group(1)
        counts[name] = counts.get(name, 0) + 1
        calls.append(Call(name, m.group(2), m.group(3), counts[name], text))
    return calls


def marker_index(calls: list[Call], label: str) -> int | None:
    for i, call in enumerate(calls):
        if call.name == "getxattr" and f'"{MARKER_DIR}/{label}' in call.args:
            return i
    return None


def fd_path(args: str) -> str:
    m = re.match(r"\d+<([^>]*)>", args)
    return m.group(1) if m else ""


def is_file(path: str) -> bool:
    return path.startswith("/") and not path.startswith(("/dev/", "/proc/", "/sys/"))


@dataclass
class KillPoint:
    pos: int  # index among traced calls after the start marker
    name: str
    nth: int
    what: str  # the strace line, for messages
    path: str = ""  # the file a descriptor syscall works on (strace -y)
    tool_call: int = 0  # > 0: a kill inside the tool_call-th execute_tool
    tool_name: str = ""
    model_call: int = 0  # > 0: a kill inside the model_call-th call to the model
    model_calls: int = 0  # calls to the fake model before this point


def kill_points(calls: list[Call], base: Path) -> list[KillPoint]:
    """Every file-system syscall the submission made during run_agent, and every tool marker."""
    start, end = marker_index(calls, "start"), marker_index(calls, "end")
    assert start is not None and end is not None, "the clean run has no start/end marker"
    points, writable, model_calls = [], set(), 0
    for pos, call in enumerate(calls[start + 1: end]):
        if call.name == "getxattr" and f'"{MARKER_DIR}/model/' in call.args:
            model_calls += 1
            point = KillPoint(pos, call.name, call.nth, call.text, model_calls=model_calls, model_call=model_calls)
            points.append(point)
            continue
        # Paths shown relative to the clean run's folder: "./checkpoint.json".
        what = call.text.split(None, 1)[1].replace(os.path.realpath(base / "clean" / "work"), ".")
        what = what if len(what) <= 180 else what[:177] + "..."
        point = KillPoint(pos, call.name, call.nth, what, model_calls=model_calls)
        if call.name == "getxattr":
            m = re.search(rf'"{MARKER_DIR}/tool/(\d+)/([^"]+)"', call.args)
            if m:
                point.tool_call, point.tool_name = int(m.group(1)), m.group(2)
                points.append(point)
        elif call.name in OPENS:
            if WRITE_FLAGS.search(call.args):
                points.append(point)
                m = re.match(r"(\d+)<", call.ret)
                if m:
                    writable.add(m.group(1))
        elif call.name == "close":
            fd = re.match(r"(\d+)", call.args)
            if fd and fd.group(1) in writable:
                writable.discard(fd.group(1))
                points.append(point)
        elif call.name in FD_CHANGES:
            point.path = fd_path(call.args)
            if is_file(point.path):
                points.append(point)
        elif call.name in PATH_CHANGES:
            points.append(point)
    return points


# --- what the real kills left, beside what the grader replays ---------------------------------------

JUDGED = ("checkpoint.json", "checkpoints/checkpoint.json")


def folder_files(work: Path) -> dict[str, bytes]:
    found = {}
    for path in sorted(work.rglob("*")):
        if path.is_file():
            found[str(path.relative_to(work))] = path.read_bytes()
    return found


@dataclass
class Kill:
    point: KillPoint
    files: dict[str, bytes]
    problem: str = ""  # the kill did not land where planned


def kill_at(submission: Path, base: Path, point: KillPoint) -> Kill:
    if point.nth > 65535:  # strace's when= stops there
        return Kill(point, {}, f"occurrence {point.nth} is past what strace's when= can count")
    run = run_traced(submission, base, f"{point.name}:signal=SIGKILL:when={point.nth}")
    kill = Kill(point, folder_files(run.workdir))
    calls = parse(run.lines)
    start = marker_index(calls, "start")
    died = any("+++ killed by SIGKILL +++" in line for line in run.lines)
    if not died or start is None or not calls or calls[-1].ret.strip() != "?":
        kill.problem = f"the process was not killed by the injection (exit {run.returncode})"
    elif len(calls) - 1 - (start + 1) != point.pos or calls[-1].name != point.name:
        kill.problem = f"the kill landed elsewhere: {calls[-1].text!r}"
    shutil.rmtree(base)
    return kill


def squeeze(contents: list) -> list:
    """Consecutive equal states as one: a run of calls that left the judged file alone is one state."""
    out = []
    for content in contents:
        if not out or out[-1] != content:
            out.append(content)
    return out


@dataclass
class Compared:
    real: dict[str, list]       # judged path -> the states real kills left (squeezed), then the final folder
    replayed: dict[str, list]   # judged path -> the replay's killed-process states (squeezed)
    tools: dict[str, list]      # judged path -> [(real, replayed)] inside each tool call
    models: dict[str, list]     # judged path -> [(real, replayed)] inside each model call
    kills: int
    seconds: float


def replayed(submission: Path):
    """The grader's one traced run of the submission, in its sandbox."""
    from graders.grading import default_run
    from graders.judge.nivel2 import job

    return default_run()(submission.read_text(encoding="utf-8"), submission.name, job())


def compare(submission: Path, base: Path) -> Compared:
    from graders.replay.states import MODEL, TOOL, TORN, replay

    started = time.perf_counter()
    clean = run_traced(submission, base / "clean")
    result = next((l for l in clean.stdout.splitlines() if l.startswith(RESULT_PREFIX)), None)
    assert clean.returncode == 0 and result, (
        f"{submission.name}: the clean run did not finish (exit {clean.returncode}):\n{clean.stderr[-2000:]}")
    final = folder_files(clean.workdir)
    points = kill_points(parse(clean.lines), base)
    assert points, f"{submission.name}: no file-system syscall or tool call seen during run_agent"
    kills = list(POOL.map(lambda ip: kill_at(submission, base / f"kill-{ip[0]}", ip[1]), enumerate(points)))
    misplaced = [f"  {k.point.name} #{k.point.nth} (`{k.point.what}`): {k.problem}" for k in kills if k.problem]
    assert not misplaced, f"{submission.name}: kills that did not land as planned:\n" + "\n".join(misplaced)

    trace = replayed(submission)
    assert trace.ended_cleanly, f"{submission.name}: the graded run did not end cleanly ({trace.end})"
    out = Compared({}, {}, {}, {}, len(kills), 0.0)
    for path in JUDGED:
        states = replay(trace, tuple(path.split("/"))).states
        calls = [k for k in kills if not k.point.tool_call and not k.point.model_call]
        out.real[path] = squeeze([None] + [k.files.get(path) for k in calls] + [final.get(path)])
        out.replayed[path] = squeeze([s.content for s in states if s.kind != TORN])
        real_tools = [k.files.get(path) for k in kills if k.point.tool_call]
        real_models = [k.files.get(path) for k in kills if k.point.model_call]
        out.tools[path] = list(zip(real_tools, [s.content for s in states if s.kind == TOOL]))
        out.models[path] = list(zip(real_models, [s.content for s in states if s.kind == MODEL]))
        assert len(real_tools) == sum(s.kind == TOOL for s in states), (path, len(real_tools))
        assert len(real_models) == sum(s.kind == MODEL for s in states), (path, len(real_models))
    out.seconds = time.perf_counter() - started
    return out


def brief(content) -> str:
    if content is None:
        return "(absent)"
    text = content.decode("utf-8", "replace").replace("\n", " ")
    return repr(text if len(text) <= 120 else f"{text[:60]} … {text[-50:]}")


# --- the tests --------------------------------------------------------------------------------


def test_strace_is_installed():
    assert Path(STRACE).is_file(), f"{STRACE} not found: `apt-get install strace` (make test does it)"


def test_selection_covers_honest_and_buggy_code():
    ok = [c for c in CASES if all(c.expected.values())]
    bad = [c for c in CASES if not all(c.expected.values())]
    assert len(ok) >= 20 and len(bad) >= 20, (len(ok), len(bad))
    corpus = {c.name for c in all_cases() if c.exercise == "nivel-2"}
    assert set(EXCLUDED) <= corpus, set(EXCLUDED) - corpus


@pytest.fixture(scope="session")
def comparisons(request, tmp_path_factory):
    """Start the real-kill runs of every selected submission at once; each test waits for its own."""
    if not Path(STRACE).is_file():
        pytest.fail(f"{STRACE} not found: `apt-get install strace` (make test does it)")
    wanted = [item.callspec.params["case"] for item in request.session.items
              if getattr(item, "originalname", "") == "test_real_kills_leave_the_replayed_states"]
    base = tmp_path_factory.mktemp("real-kills")
    outer = ThreadPoolExecutor(max_workers=SUBMISSIONS_AT_ONCE)
    futures = {case.name: outer.submit(compare, case.path, base / case.name) for case in wanted}
    yield futures
    outer.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.path.name)
def test_real_kills_leave_the_replayed_states(case, comparisons):
    got = comparisons[case.name].result()
    problems = []
    for path in JUDGED:
        real, replay = got.real[path], got.replayed[path]
        if real != replay:
            problems.append(f"  {path}: real kills went through {len(real)} states, the replay {len(replay)}:\n"
                            + "\n".join(f"    real {brief(a)}\n    repl {brief(b)}"
                                        for a, b in zip(real + [None] * 9, replay + [None] * 9)
                                        if a != b)[:3000])
        for label, pairs in (("tool", got.tools[path]), ("model call", got.models[path])):
            for n, (a, b) in enumerate(pairs, start=1):
                if a != b:
                    problems.append(f"  {path}: inside {label} {n}, real {brief(a)} but replayed {brief(b)}")
    assert not problems, f"{case.path.name} ({case.why}); {got.kills} real kills in {got.seconds:.1f}s:\n" + "\n".join(problems)


def test_torn_write_is_what_real_kills_cannot_show(tmp_path):
    """A sample whose only fault is one in-place write(): every real kill leaves a complete file, the
    replay agrees on every one of those states, and only its cuts of that write fail the grade."""
    from graders.grading import grade
    from graders.submission import read

    sample = Path(__file__).with_name("samples") / "torn_in_place.py"
    got = compare(sample, tmp_path)
    assert got.real["checkpoint.json"] == got.replayed["checkpoint.json"]
    assert all(c is None or c.startswith(b"{") and c.endswith(b"}") for c in got.real["checkpoint.json"])
    verdict = {c.id: c for c in grade("nivel-2", read(str(sample), "nivel-2"), sample.name).criteria}
    assert verdict["escrita-atomica"].passed is False and verdict["ponto-a"].passed is True
    assert "no meio da escrita" in verdict["escrita-atomica"].message
