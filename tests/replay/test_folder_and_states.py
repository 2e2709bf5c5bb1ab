"""The folder model and the crash states it yields, on hand-built event streams."""

from __future__ import annotations

from graders.replay.folder import Folder
from graders.replay.states import AFTER, MODEL, START, TOOL, TORN, cuts, replay
from graders.trace.ops import RENAME_EXCHANGE, Event, Root, Trace

WORK = "/w"


def folder(*events):
    f = Folder([Root("work", 1, WORK)])
    for ev in events:
        f.apply(ev)
    return f


def read(f, *parts, durable=False):
    return f.content(f.lookup(1, list(parts), durable=durable), durable=durable)


def test_writes_follow_the_inode_across_a_rename():
    f = folder(Event("open", node=2, dir=1, name="a", created=True),
               Event("rename", node=2, dir=1, name="a", dir2=1, name2="b"),
               Event("write", node=2, offset=0, data=b"xy"),  # through a descriptor opened before the rename
               Event("write", node=2, offset=4, data=b"z"))   # past the end: a hole of zeros
    assert read(f, "a") is None and read(f, "b") == b"xy\0\0z"


def test_failed_calls_change_nothing():
    f = folder(Event("open", node=2, dir=1, name="a", created=True), Event("write", node=2, data=b"1"),
               Event("rename", ok=False, errno="EXDEV", node=2, dir=1, name="a", dir2=1, name2="b"))
    assert read(f, "a") == b"1" and read(f, "b") is None


def test_truncate_exchange_links_and_symlinks():
    f = folder(Event("open", node=2, dir=1, name="a", created=True), Event("write", node=2, data=b"hello"),
               Event("open", node=3, dir=1, name="b", created=True), Event("write", node=3, data=b"B"),
               Event("truncate", node=2, length=2),
               Event("rename", node=2, dir=1, name="a", dir2=1, name2="b", flags=RENAME_EXCHANGE),
               Event("link", node=2, dir=1, name="c"),
               Event("mkdir", node=4, dir=1, name="d"),
               Event("symlink", node=5, dir=4, name="s", target="../c"),
               Event("symlink", node=6, dir=1, name="abs", target=f"{WORK}/b"))
    assert read(f, "a") == b"B" and read(f, "b") == b"he" and read(f, "c") == b"he"
    assert read(f, "abs") == b"he" and read(f, "d", "s") == b"he" and read(f, "d", "..", "c") == b"he"
    assert f.files() == {f"{WORK}/a": b"B", f"{WORK}/abs": None, f"{WORK}/b": b"he", f"{WORK}/c": b"he",
                         f"{WORK}/d/s": None}


def test_durable_data_and_entries_need_their_own_fsync():
    f = folder(Event("open", node=2, dir=1, name="t", created=True), Event("write", node=2, data=b"{}"),
               Event("rename", node=2, dir=1, name="t", dir2=1, name2="c"))
    assert read(f, "c") == b"{}"
    assert read(f, "c", durable=True) is None                  # the rename is not durable: the folder was not synced
    assert f.content(f.lookup(1, ["c"]), durable=True) == b""  # the entry kept, the data lost: an empty file
    f.apply(Event("fsync", node=2))
    assert f.content(f.lookup(1, ["c"]), durable=True) == b"{}"
    f.apply(Event("fsync", node=1))
    assert read(f, "c", durable=True) == b"{}"
    f.apply(Event("open", node=3, dir=1, name="x", created=True))
    f.apply(Event("write", node=3, data=b"s", sync=True))  # O_SYNC: the data is durable at once
    f.apply(Event("sync"))
    assert read(f, "x", durable=True) == b"s"


def trace(*events):
    return Trace([Root("work", 1, WORK)], list(events))


def test_states_after_each_call_during_tools_and_model_calls_and_torn_writes():
    t = trace(Event("model", call=1),
              Event("open", node=2, dir=1, name="checkpoint.json", created=True),
              Event("write", node=2, data=b'{"a": 1}'),
              Event("tool", call=1, payload={"name": "x"}),
              Event("open", node=2, dir=1, name="checkpoint.json", trunc=True),
              Event("write", node=2, data=b'{"a": 2}'),
              Event("model", call=2))
    states = replay(t, final_replies=2).states
    kinds = [s.kind for s in states]
    assert kinds == [START, MODEL, AFTER, TORN, AFTER, TOOL, AFTER, TORN, AFTER, MODEL]
    assert states[5].content == b'{"a": 1}' and states[5].tools == 1 and states[5].served == 1
    assert states[6].content == b""            # emptied by O_TRUNC: the state a killed process leaves
    torn = list(cuts(states[7]))
    assert [k for k, _ in torn] == list(range(1, 8)) and torn[0][1] == b"{"
    assert states[-1].served == 1 and not states[-1].finished


def test_a_cut_that_leaves_the_same_bytes_is_no_new_state():
    t = trace(Event("open", node=2, dir=1, name="checkpoint.json", created=True),
              Event("write", node=2, data=b'{"turns": 1}'),
              Event("write", node=2, offset=0, data=b'{"turns": 2}'))  # only one byte differs
    states = replay(t).states
    torn = [s for s in states if s.kind == TORN]
    assert [k for k, _ in cuts(torn[-1])] == [11]


def test_calls_that_leave_the_judged_file_alone_are_one_state():
    t = trace(*[Event("open", node=n, dir=1, name=f"log{n}", created=True) for n in range(2, 40)])
    states = replay(t).states
    assert len(states) == 2 and states[1].first == 0 and states[1].last == 37


def test_rename_between_two_hard_links_of_one_file_does_nothing():
    # rename(2): "If oldpath and newpath are existing hard links referring to the same file, rename()
    # does nothing". The model used to drop the old name, and the end-of-run comparison then failed.
    f = folder(Event("open", node=2, dir=1, name="a", created=True), Event("write", node=2, data=b"1"),
               Event("link", node=2, dir=1, name="b"),
               Event("rename", node=2, dir=1, name="b", dir2=1, name2="a"))
    assert read(f, "a") == b"1" and read(f, "b") == b"1"


def test_dot_dot_above_a_root_climbs_to_the_folder_holding_it():
    # Under bubblewrap the work folder lies in the home root: a link to ../estado.json is the home
    # folder's file, not the work folder's (judging the latter passed an in-place writer).
    f = Folder([Root("home", 1, "/home/aluno"), Root("work", 2, "/home/aluno/projeto")])
    for ev in (Event("open", node=3, dir=1, name="estado.json", created=True), Event("write", node=3, data=b"home"),
               Event("open", node=4, dir=2, name="estado.json", created=True), Event("write", node=4, data=b"work"),
               Event("symlink", node=5, dir=2, name="checkpoint.json", target="../estado.json")):
        f.apply(ev)
    assert f.content(f.lookup(2, ["checkpoint.json"])) == b"home"
    # Above every root lies nothing the run wrote.
    f.apply(Event("symlink", node=6, dir=2, name="fora.json", target="../../estado.json"))
    assert f.lookup(2, ["fora.json"]) is None


def test_a_link_into_tmp_leads_to_the_runs_own_temp_folder():
    # Reduced mode: the run's temp folder has a real name, and the run sees it as /tmp.
    f = Folder([Root("work", 1, "/dev/shm/c/aluno/projeto"), Root("tmp", 2, "/tmp/c/tmp")])
    for ev in (Event("open", node=3, dir=2, name="estado.json", created=True), Event("write", node=3, data=b"ok"),
               Event("symlink", node=4, dir=1, name="checkpoint.json", target="/tmp/estado.json")):
        f.apply(ev)
    assert f.content(f.lookup(1, ["checkpoint.json"])) == b"ok"
    assert set(f.files()) == {"/dev/shm/c/aluno/projeto/checkpoint.json", "/tmp/c/tmp/estado.json"}


def test_a_mapped_checkpoint_marks_its_states():
    trace = Trace([Root("work", 1, WORK)], [
        Event("open", node=2, dir=1, name="checkpoint.json", created=True), Event("write", node=2, data=b"{}"),
        Event("mapped", node=2), Event("tool", call=1), Event("unmapped", node=2), Event("model", call=1)])
    states = replay(trace).states
    assert [(s.kind, s.mapped) for s in states if s.kind != TORN][-3:] == [(AFTER, True), (TOOL, True), (MODEL, False)]
