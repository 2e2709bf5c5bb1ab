"""Red team against the grader itself: a run that changes a 4 MB checkpoint one byte at a time, 19,000
times, stays inside the grader's limits on operations and bytes written, but every write is a crash
state of its own, and the replay kept a copy of the judged file for each (and the judge parsed each):
~76 GB and hours of parsing in the CLI's own process, where every other submission's verdict lives.
The replay now stops past 256 MB of held states; the file is reported as not graded (a grader limit),
and the batch goes on."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from conftest import ROOT

from advkit import ISOLATION_MODES, assert_sibling_passes, by_file, make_arena, mode_args, mode_id, report, run_cli

from graders.replay.states import MAX_HELD, TooManyStates, replay
from graders.trace.ops import Event, Root, Trace


def test_the_replay_stops_before_holding_too_much():
    # The same shape as the attack, without a sandbox: one 4 MB file, then one-byte writes.
    data = b"{}" + b" " * (4 << 20)
    events = [Event("open", node=2, dir=1, name="checkpoint.json", created=True, kind2="file"),
              Event("write", node=2, offset=0, data=data)]
    count = MAX_HELD // len(data) + 8
    events += [Event("write", node=2, offset=len(data) - 10, data=b"\n" if i % 2 == 0 else b" ")
               for i in range(count)]
    with pytest.raises(TooManyStates):
        replay(Trace([Root("work", 1, "/w")], events))


def test_a_torn_write_of_whitespace_is_not_walked_cut_by_cut():
    # A 1 MB checkpoint whose trailing spaces one write turns into newlines: every one of its million
    # cuts parses to the checkpoint already seen, so the judge used to build and parse them all (a
    # terabyte; with 4 MB, hours and the complete_key cache's 16 GB). Judged in a child, with a time
    # and a memory cap: it must stop at the grader's limit instead.
    code = textwrap.dedent("""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        from graders.judge.points import CrashPoints
        from graders.replay.states import replay
        from graders.trace.ops import Event, Root, Trace
        size = 1 << 20
        events = [Event("open", node=2, dir=1, name="checkpoint.json", created=True, kind2="file"),
                  Event("write", node=2, offset=0, data=b'{"a": 1}' + b" " * size),
                  Event("write", node=2, offset=8, data=b"\\n" * size)]
        trace = Trace([Root("work", 1, "/w")], events)
        try:
            CrashPoints(trace, replay(trace).states, 3, "checkpoint.json")
            print("walked")
        except Exception as exc:
            print(type(exc).__name__)
    """)
    try:
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=90)
    except subprocess.TimeoutExpired:
        pytest.fail("the judge was still walking the cuts after 90 s")
    assert done.stdout.strip() == "TooManyStates", done.stdout + done.stderr[-2000:]


@pytest.fixture(scope="module", params=ISOLATION_MODES, ids=mode_id)
def bombed(request, tmp_path_factory):
    arena = make_arena(tmp_path_factory.mktemp("redteam-bomb"))
    files = [arena.render("redteam_state_bomb", count=19000), arena.sibling()]
    run = run_cli(arena, files, *mode_args(request.param), "--timeout", "60", timeout=600)
    return run, files


def test_not_graded_and_the_batch_goes_on(bombed):
    run, files = bombed
    data = report(run, files)
    entry = by_file(data)["redteam_state_bomb.py"]
    assert entry.get("limit") is True and entry["passed"] is False, entry
    assert "limite do corretor" in entry["error"]
    assert_sibling_passes(data, files[-1])
    assert run.leftovers == []
