"""Ground truth for the crash simulator: real SIGKILLs, injected by strace at every file-system syscall
of nivel-2 corpus submissions, must give the escrita-atomica and ponto-a verdicts the corpus expects."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
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
    "bad_disables_crash_plan": "hostile: switches the grader's crash simulator off",
    "bad_edits_the_script": "hostile: edits the grader's fake model through call_model.__self__",
    "bad_exit_builtin_in_save": "hostile: exit() in the middle of the run",
    "bad_gc_objects": "hostile: searches the grader's objects with gc",
    "bad_infinite_loop": "cli-only: loops forever",
    "bad_inspect_frames": "hostile: climbs frames to the grader",
    "bad_js_bridge": "hostile: Pyodide's js module",
    "bad_no_run_agent": "no run_agent to run",
    "bad_os_exit_in_loop": "hostile: os._exit()",
    "bad_raises": "raises inside run_agent",
    "bad_retries_forever": "cli-only: retries forever",
    "bad_syntax_error": "does not compile",
    "bad_sys_exit_on_import": "hostile: sys.exit() on import",
    "bad_tamper_grader": "hostile: patches the grader",
    "bad_tamper_json_loads": "hostile: rebinds json.loads",
    "bad_tamper_only_after_crash": "hostile: rebinds json.loads when crashed",
    "bad_tamper_restores_open": "hostile: restores the untraced io.open",
    "bad_traceback_frames": "hostile: frames from a traceback",
    "bad_unhooks_audit": "hostile: silences the grader's audit hook",
    "bad_walks_frames": "hostile: sys._getframe to the grader",
    # Verdicts that are refusals, not crash results.
    "bad_fileio_bypass": "the grader refuses to judge code that bypasses it (io.FileIO)",
    "bad_no_tools_no_save": "the grader refuses to judge: no tool call, no checkpoint at all",
    # The grader fails a rename across folders as one across file systems (where os.replace fails
    # with EXDEV and shutil.move copies); here both folders share one file system: no kill shows it.
    "bad_tmp_in_subfolder": "cross-folder rename: judged by policy, invisible on one file system",
    "bad_tmp_in_system_tmp": "cross-folder rename: judged by policy, invisible on one file system",
    "bad_tmp_hardcoded_in_tmp": "cross-folder rename, and a fixed path in the real /tmp that parallel runs would share",
    # Left out for time only (228 kill points, one per line written): its in-place write already
    # fails at the first kill, like bad_only_point_a_fixed. ok_line_buffered keeps the many-writes case.
    "bad_line_buffered_in_place": "slow and redundant: fails at its first write, like bad_only_point_a_fixed",
}


def _selected():
    cases = [c for c in all_cases() if c.exercise == "nivel-2" and c.path.suffix == ".py"]
    return [c for c in cases if c.name not in EXCLUDED and not c.cli_only]


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
    model_calls: int = 0  # calls to the fake model before this point


def kill_points(calls: list[Call], base: Path) -> list[KillPoint]:
    """Every file-system syscall the submission made during run_agent, and every tool marker."""
    start, end = marker_index(calls, "start"), marker_index(calls, "end")
    assert start is not None and end is not None, "the clean run has no start/end marker"
    points, writable, model_calls = [], set(), 0
    for pos, call in enumerate(calls[start + 1: end]):
        if call.name == "getxattr" and f'"{MARKER_DIR}/model/' in call.args:
            model_calls += 1
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


# --- reading the folder as a resume would -------------------------------------------------------


def folder_files(work: Path) -> dict[str, bytes]:
    found = {}
    for path in sorted(work.rglob("*")):
        if path.is_file():
            found[str(path.relative_to(work))] = path.read_bytes()
    return found


def live_path(timeline: list[dict[str, bytes]]) -> str:
    """The checkpoint.json a resume reads: the one rewritten most often (a history copy is written
    once); on a tie the shallowest, e.g. ./checkpoint.json before ./checkpoints/checkpoint.json."""
    paths = {p for files in timeline for p in files if os.path.basename(p) == CHECKPOINT}
    changes = {p: sum(a.get(p) != b.get(p) for a, b in zip([{}] + timeline, timeline)) for p in paths}
    return min(paths, key=lambda p: (-changes[p], p.count("/"), p), default=CHECKPOINT)


def load(content: bytes | None):
    """The JSON in content, or raise ValueError (what a resumed process would hit)."""
    if content is None:
        raise ValueError("absent")
    return json.loads(content.decode("utf-8-sig"))


def show(files: dict[str, bytes], live: str) -> str:
    listing = ", ".join(f"{p} ({len(b)} B)" for p, b in files.items()) or "nothing"
    content = files.get(live)
    if content is None:
        return f"folder held: {listing}; no {live}"
    text = content.decode("utf-8", "replace").replace("\n", " ")
    shown = text if len(text) <= 160 else f"{text[:80]} … {text[-70:]}"
    return f"folder held: {listing}; {live} = «{shown}»"


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


# --- judging the kills ----------------------------------------------------------------------


@dataclass
class Judged:
    passed: dict[str, bool] = field(default_factory=dict)
    why: dict[str, str] = field(default_factory=dict)


def where(point: KillPoint) -> str:
    return f"before `{point.what}` ({point.name} call #{point.nth} of the process)"


def has_result(state, tool_use_id: str) -> bool:
    """Does the state's messages hold the tool_result of this tool_use?"""
    messages = state.get("messages") if isinstance(state, dict) else None
    return isinstance(messages, list) and any(
        isinstance(m, dict) and isinstance(m.get("content"), list)
        and any(isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") == tool_use_id
                for b in m["content"])
        for m in messages
    )


def judge(kills: list[Kill], final: dict[str, bytes], live: str, script: dict) -> Judged:
    out = Judged()
    tool_uses, model_turns = script["tool_uses"], len(script["responses"])

    # escrita-atomica: after every kill, the live checkpoint is absent (only while no complete one
    # had been written yet, or once the model has given its final answer: a finished task has
    # nothing to resume) or a complete JSON document equal to one written before the kill.
    # A real kill never tears a write, so the disk it leaves is one the program itself produced:
    # "complete ones written before" are the states that parsed at this kill point or earlier.
    written: set[str] = set()
    failure = ""
    for kill in kills:
        content = kill.files.get(live)
        try:
            key = json.dumps(load(content), sort_keys=True)
        except ValueError as exc:
            if content is None and (not written or kill.point.model_calls >= model_turns):
                continue
            what = "vanished after a complete one had been written" if content is None else f"is not JSON ({exc})"
            failure = failure or f"kill {where(kill.point)}: {live} {what}; {show(kill.files, live)}"
            continue
        written.add(key)
    out.passed["escrita-atomica"] = not failure
    out.why["escrita-atomica"] = failure or f"none of the {len(kills)} kills left {live} unreadable or lost"

    # ponto-a: a kill inside execute_tool (tool k) leaves on disk a pendingToolUse with the id, name
    # and input of block k (point A); after tool k returns, some state on disk has its tool_result
    # in messages and pendingToolUse = null (point B) before the next tool runs (or at the end).
    turn_of = {u["name"]: k for k, u in enumerate(tool_uses, start=1)}
    tool_kills = [k for k in kills if k.point.tool_call]
    failure = ""
    if sorted({k.point.tool_name for k in tool_kills}) != sorted(turn_of):
        failure = f"run_agent ran tools {[k.point.tool_name for k in tool_kills]}, not the script's two"
    for kill in tool_kills if not failure else []:
        k = turn_of[kill.point.tool_name]
        block = tool_uses[k - 1]
        expected = {"id": block["id"], "name": block["name"], "input": block["input"]}
        label = f"kill inside execute_tool #{kill.point.tool_call} ({kill.point.tool_name})"
        try:
            state = load(kill.files.get(live))
        except ValueError as exc:
            failure = f"{label}: {live} unreadable ({exc}); {show(kill.files, live)}"
            break
        pending = state.get("pendingToolUse", "absent") if isinstance(state, dict) else "absent"
        if not isinstance(pending, dict) or any(pending.get(key) != value for key, value in expected.items()):
            failure = f"{label}: pendingToolUse = {pending!r}, expected {expected!r}; {show(kill.files, live)}"
            break
    if not failure:
        last = [k for n, k in enumerate(tool_kills)
                if all(o.point.tool_name != k.point.tool_name for o in tool_kills[n + 1:])]
        for n, kill in enumerate(last):
            k = turn_of[kill.point.tool_name]
            stop = last[n + 1].point.pos if n + 1 < len(last) else None
            seen = [x.files.get(live) for x in kills
                    if x.point.pos > kill.point.pos and (stop is None or x.point.pos <= stop)]
            if stop is None:
                seen.append(final.get(live))
            states = []
            for content in seen:
                try:
                    states.append(load(content))
                except ValueError:
                    pass
            if not any(isinstance(s, dict) and s.get("pendingToolUse", "absent") is None
                       and has_result(s, tool_uses[k - 1]["id"]) for s in states):
                failure = (f"after {kill.point.tool_name} returned, no state on disk had its tool_result and "
                           f"pendingToolUse = null (point B) before the next tool or the end")
                break
    out.passed["ponto-a"] = not failure
    out.why["ponto-a"] = failure or f"every kill inside execute_tool left the pending call in {live}, and point B followed"
    return out


def torn_write_could_fail(points: list[KillPoint], live_file: Path) -> bool:
    """Is the live checkpoint itself written by a write syscall (in place)? Only then can a torn write
    (what the simulator adds to real kills, standing for power loss) leave it half-written."""
    return any(p.name in WRITES and p.path == str(live_file) for p in points)


# --- the tests --------------------------------------------------------------------------------


def test_strace_is_installed():
    assert Path(STRACE).is_file(), f"{STRACE} not found: `apt-get install strace` (make test does it)"


def test_selection_exercises_both_criteria():
    ok = [c for c in CASES if c.name.startswith("ok_")]
    bad = [c for c in CASES if c.name.startswith("bad_") and not all(c.expected[k] for k in CRITERIA)]
    assert len(ok) >= 10 and len(bad) >= 8, (len(ok), len(bad))
    for criterion in CRITERIA:
        assert sum(not c.expected[criterion] for c in CASES) >= 5, criterion
    corpus = {c.name for c in all_cases() if c.exercise == "nivel-2"}
    assert set(EXCLUDED) <= corpus, set(EXCLUDED) - corpus


@dataclass
class RealVerdict:
    judged: Judged
    kills: int
    live: str
    torn_possible: bool  # the live checkpoint is written in place: a torn write could break it
    seconds: float


def real_verdict(submission: Path, base: Path) -> RealVerdict:
    """One clean traced run, then one run per kill point, each killed there by strace; judge the folders."""
    from graders.fake_agent import script

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

    live = live_path([k.files for k in kills] + [final])
    judged = judge(kills, final, live, script())
    torn = torn_write_could_fail(points, Path(os.path.realpath(clean.workdir / live)))
    return RealVerdict(judged, len(kills), live, torn, time.perf_counter() - started)


@pytest.fixture(scope="session")
def real_verdicts(request, tmp_path_factory):
    """Start the real-kill runs of every selected submission at once; each test waits for its own."""
    if not Path(STRACE).is_file():
        pytest.fail(f"{STRACE} not found: `apt-get install strace` (make test does it)")
    wanted = [item.callspec.params["case"] for item in request.session.items
              if getattr(item, "originalname", "") == "test_real_kills_agree_with_expectation"]
    base = tmp_path_factory.mktemp("real-kills")
    outer = ThreadPoolExecutor(max_workers=SUBMISSIONS_AT_ONCE)
    futures = {case.name: outer.submit(real_verdict, case.path, base / case.name) for case in wanted}
    yield futures
    outer.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.path.name)
def test_real_kills_agree_with_expectation(case, real_verdicts):
    real = real_verdicts[case.name].result()
    problems = []
    for criterion in CRITERIA:
        expected, got = case.expected[criterion], real.judged.passed[criterion]
        if got == expected:
            continue
        if criterion == "escrita-atomica" and got and not expected and real.torn_possible:
            # Allowed, this direction only: a kill never tears one write() in half, while the
            # simulator also crashes mid-write (power loss) and so may fail an in-place write.
            warnings.warn(f"{case.path.name}: escrita-atomica passes real kills; only a torn in-place write fails it")
            continue
        why = real.judged.why[criterion]
        if got and not expected and criterion == "escrita-atomica":
            why += f"; nothing writes {real.live} in place, so a torn write cannot matter either"
        problems.append(
            f"  {criterion}: real kills say {'ok' if got else 'falhou'}, the corpus expects "
            f"{'ok' if expected else 'falhou'}\n    {why}"
        )
    assert not problems, (
        f"{case.path.name} ({case.why}); {real.kills} real kills in {real.seconds:.1f}s, live file {real.live}:\n"
        + "\n".join(problems)
    )


def test_torn_write_asymmetry_is_real_and_detected(tmp_path):
    """A sample whose only fault is one in-place write(): kills pass it, the simulator fails it."""
    from graders.grading import grade
    from graders.submission import read

    if not Path(STRACE).is_file():
        pytest.fail(f"{STRACE} not found: `apt-get install strace` (make test does it)")
    sample = Path(__file__).with_name("samples") / "torn_in_place.py"
    real = real_verdict(sample, tmp_path)
    assert real.judged.passed == {"escrita-atomica": True, "ponto-a": True}, real.judged.why
    assert real.torn_possible
    verdict = {c.id: c.passed for c in grade("nivel-2", read(str(sample), "nivel-2"), sample.name).criteria}
    assert verdict["escrita-atomica"] is False and verdict["ponto-a"] is True, verdict
