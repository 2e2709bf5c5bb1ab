"""Race harness: for every call family the supervisor decides and every way a second task can
rewrite the call's path argument meanwhile, what the kernel did to the folder is exactly what the
trace recorded (or the call was refused). Checked in both modes, from outside: the recorded events
replayed give the final folder, no recorded failure contradicts them, and nothing outside changed.
If the supervisor ever let the kernel re-read a checked argument (SECCOMP_USER_NOTIF_FLAG_CONTINUE),
the flipped name would be acted on untraced and these checks fail (seen by putting CONTINUE back for
mutations outside the roots: 10 of the 12 families fail under bubblewrap, chmod in reduced mode).
The supervisor also refuses, by construction, to continue a call whose handling read the caller's
memory: the last tests check that guard on its own. One exception, which changes nothing on disk
and decides nothing: under bubblewrap a read-only open is continued on its flags register alone,
decided before its path is read; the path it then reads feeds only the report's "inspeciona o
corretor" hint (graders/trace/kernel/reads.py), never a verdict. In reduced mode, once the student's
code has started, every call that only looks at a path (a read-only open, stat, access, readlink...)
is performed by the supervisor on the path it copied, in a thread fenced as the run is or where
that thread's answer cannot differ (graders/trace/kernel/looks.py): none is continued
(tests/adversarial/test_adv_look_race.py flips their paths)."""

from __future__ import annotations

import base64
import json
import os
import platform
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from graders.sandbox.sandbox import Sandbox
from graders.trace.kernel.seccomp import syscall_nr

HERE = Path(__file__).resolve().parent
JOB = {"function": "save_checkpoint", "states": [{"n": 1}]}
N = 120  # calls per way of sharing: each one races a tight loop flipping the name
AT_FDCWD, O_WRONLY, O_CREAT, O_TRUNC, O_PATH, RENAME_NOREPLACE = -100, 0o1, 0o100, 0o1000, 0o10000000, 1

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64" or not shutil.which("gcc"),
                                reason="o harness usa números de chamadas do x86-64 e um auxiliar em C")

# family -> (call, arguments with "BUF" for the flipped path, inside name, fixed strings, reset steps,
#            returns a descriptor)
FAMILIES = {
    "open": ("openat", [AT_FDCWD, "BUF", O_WRONLY | O_CREAT | O_TRUNC, 0o644], "f_open", [],
             [("f_open", "absent")], True),
    "open_path": ("openat", [AT_FDCWD, "BUF", O_PATH | O_WRONLY | O_CREAT, 0o644], "f_opath", [], [], True),
    "rename": ("rename", ["BUF", "FIXED0"], "f_src", ["f_dst"], [("f_src", "file_if_missing")], False),
    "renameat2": ("renameat2", [AT_FDCWD, "BUF", AT_FDCWD, "FIXED0", RENAME_NOREPLACE], "f_src2", ["f_dst2"],
                  [("f_dst2", "absent"), ("f_src2", "file_if_missing")], False),
    "link": ("link", ["FIXED0", "BUF"], "f_link", ["f_lsrc"], [("f_lsrc", "file_if_missing"), ("f_link", "absent")], False),
    "linkat": ("linkat", [AT_FDCWD, "FIXED0", AT_FDCWD, "BUF", 0], "f_link2", ["f_lsrc"],
               [("f_lsrc", "file_if_missing"), ("f_link2", "absent")], False),
    "symlink": ("symlink", ["FIXED0", "BUF"], "f_sym", ["alvo"], [("f_sym", "absent")], False),
    "unlink": ("unlink", ["BUF"], "f_unl", [], [("f_unl", "file_if_missing")], False),
    "mkdir": ("mkdir", ["BUF", 0o755], "d_mk", [], [("d_mk", "absent")], False),
    "rmdir": ("rmdir", ["BUF"], "d_rm", [], [("d_rm", "dir_if_missing")], False),
    "truncate": ("truncate", ["BUF", 3], "f_tr", [], [("f_tr", "append")], False),
    "chmod": ("chmod", ["BUF", 0o700], "f_mode", [], [("f_mode", "file_if_missing")], False),
}
SHARINGS = ("thread", "shared_anonymous", "character_device", "memfd", "sysv", "clone_vm",
            "process_vm_writev", "proc_mem", "vfork")
# Ways of sharing the filter refuses outright (ENOSYS/EPERM/EACCES at set-up); all others must run.
MAY_BE_REFUSED = {"sysv", "clone_vm", "process_vm_writev", "proc_mem"}


@pytest.fixture(scope="module")
def helper(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("race") / "race_helper.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", str(out), str(HERE / "race_helper.c")], check=True)
    return base64.b64encode(out.read_bytes()).decode()


@pytest.fixture(scope="module", params=["isolated", "reduced"])
def box(request):
    if request.param == "isolated" and not shutil.which("bwrap"):
        pytest.skip("bwrap indisponível")
    sandbox = Sandbox(isolated=request.param == "isolated", memory_mb=1024)
    sandbox.mode = request.param
    yield sandbox
    sandbox.close()


@pytest.fixture
def decoys():
    """A host folder outside every root: the reduced-mode run can name it; isolated runs cannot see it.
    Not under /tmp: there reduced mode shows the run its own temp folder instead (target.resolve)."""
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else "/var/tmp"
    folder = Path(tempfile.mkdtemp(prefix="corrida-", dir=shm)) / "fora"
    folder.mkdir()
    (folder / "isca").write_bytes(b"isca")
    os.chmod(folder / "isca", 0o640)
    folder.chmod(0o777)
    folder.parent.chmod(0o755)
    yield folder
    shutil.rmtree(folder.parent, ignore_errors=True)


def _listing(folder: Path) -> dict:
    return {p.name: (stat.S_IMODE(p.lstat().st_mode), p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.iterdir())}


def _submission(helper: str, family: str, outside: str) -> str:
    call, args, inside, fixed, reset, returns_fd = FAMILIES[family]
    spec = {"nr": syscall_nr(call), "args": args, "inside": inside, "outside": outside, "fixed": fixed,
            "reset": reset, "returns_fd": returns_fd, "n": N}
    text = (HERE / "race_submission.py").read_text()
    text = text.replace("@@HELPER@@", helper)
    return text.replace("@@SPEC@@", base64.b64encode(json.dumps(spec).encode()).decode())


def replay(trace) -> tuple[dict, list[str]]:
    """The work folder as the recorded events build it ({path: bytes, or None for a symlink}), and
    every place where a recorded event contradicts that model (something happened untraced)."""
    work = trace.root("work")
    dirs = {work.node: ""}
    entries: dict[tuple, int] = {}
    kinds: dict[int, str] = {}
    data: dict[int, bytearray] = {}
    problems: list[str] = []
    for entry in work.entries:
        entries[(entry["dir"], entry["name"])] = entry["node"]
        kinds[entry["node"]] = entry["kind"]
        data[entry["node"]] = bytearray(entry.get("data") or b"")
    dirs.update({node: "?" for node, kind in kinds.items() if kind == "dir"})

    def known_dir(e, which):
        node = getattr(e, which)
        if node and node not in dirs and node not in {r.node for r in trace.roots}:
            problems.append(f"{e.kind} em uma pasta que o registro nunca criou: {e}")

    for e in trace.events:
        if e.kind in ("open", "rename", "unlink", "rmdir", "mkdir", "link", "symlink") and e.dir:
            known_dir(e, "dir")
        here = (e.dir, e.name)
        if not e.ok:
            present = here in entries
            if e.errno == "ENOENT" and e.kind in ("unlink", "rmdir", "rename") and present:
                problems.append(f"{e.kind} falhou com ENOENT num nome que o registro diz existir: {e.path}")
            if e.errno == "EEXIST" and e.kind in ("mkdir", "symlink", "link") and not present:
                problems.append(f"{e.kind} falhou com EEXIST num nome que o registro diz livre: {e.path}")
            continue
        if e.kind == "open" and e.name and e.dir:
            if e.created and here in entries:
                problems.append(f"open criou um nome que o registro diz existir: {e.path}")
            if not e.created and here not in entries:
                problems.append(f"open achou um nome que o registro nunca criou: {e.path}")
            entries[here] = e.node
            kinds[e.node] = "file"
            if e.created or e.trunc:
                data[e.node] = bytearray()
            data.setdefault(e.node, bytearray())
        elif e.kind == "write" and e.node in data:
            buf = data[e.node]
            if e.offset != len(buf):  # the harness only writes new files and appends
                problems.append(f"escrita em {e.offset} num arquivo de {len(buf)} bytes pelo registro")
            end = e.offset + len(e.data)
            if len(buf) < end:
                buf.extend(b"\0" * (end - len(buf)))
            buf[e.offset:end] = e.data
        elif e.kind == "truncate" and e.node in data:
            buf = data[e.node]
            del buf[e.length:]
            buf.extend(b"\0" * (e.length - len(buf)))
        elif e.kind in ("unlink", "rmdir"):
            if entries.pop(here, None) is None:
                problems.append(f"{e.kind} de um nome que o registro nunca criou: {e.path}")
            if e.kind == "rmdir":
                dirs.pop(e.node, None)
        elif e.kind == "mkdir":
            if here in entries:
                problems.append(f"mkdir de um nome que o registro diz existir: {e.path}")
            entries[here] = e.node
            kinds[e.node] = "dir"
            dirs[e.node] = e.name
        elif e.kind == "symlink":
            if here in entries:
                problems.append(f"symlink num nome que o registro diz existir: {e.path}")
            entries[here] = e.node
            kinds[e.node] = "symlink"
        elif e.kind == "link":
            if here in entries:
                problems.append(f"link num nome que o registro diz existir: {e.path}")
            entries[here] = e.node
        elif e.kind == "rename":
            moved = entries.pop(here, None)
            if moved is None:
                problems.append(f"rename de um nome que o registro nunca criou: {e.path}")
                moved = e.node
            there = (e.dir2, e.name2)
            if e.flags & RENAME_NOREPLACE and there in entries:
                problems.append(f"rename sem substituir sobre um nome que o registro diz existir: {e.path2}")
            entries[there] = moved
    out = {}
    names = {}
    for (parent, name), node in entries.items():
        names[node] = (parent, name)
    for (parent, name), node in entries.items():
        parts, up = [name], parent
        while up != work.node:
            if up not in names:
                break
            up, upname = names[up][0], names[up][1]
            parts.insert(0, upname)
        else:
            if kinds.get(node) == "dir":
                continue
            path = os.path.join(work.path, *parts)
            out[path] = None if kinds.get(node) == "symlink" else bytes(data.get(node, b""))
    return out, problems


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_flipped_argument_is_traced_as_done_or_refused(box, family, helper, decoys):
    before = _listing(decoys)
    # Outside the roots, with a parent that exists where the run looks: the read-only "/" under
    # bubblewrap, a host folder of ours in reduced mode (the chmod family aims at a decoy file).
    if family == "chmod":
        outside = str(decoys / "isca") if box.mode == "reduced" else "/etc/hostname"
    else:
        outside = "/fora-corrida" if box.mode == "isolated" else str(decoys / "fora-corrida")
    trace = box.run(_submission(helper, family, outside), "aluno.py", JOB, timeout=60.0,
                    caps={"events": 200_000})
    assert trace.end == "exit" and trace.code == 0, (trace.end, trace.code, trace.output[-3000:], trace.report)
    line = next(x for x in trace.output.splitlines() if x.startswith("RACE "))
    summary = json.loads(line[5:])
    for name in SHARINGS:
        result = summary[name]
        assert result["status"] == "ran" or name in MAY_BE_REFUSED, (name, result)
    expected, problems = replay(trace)
    assert not problems, problems[:5]
    work = trace.root("work").path
    actual = {p: d for p, d in trace.final.items() if p.startswith(work + "/")}
    assert actual == expected
    assert _listing(decoys) == before  # nothing outside changed (reduced mode could name it)
    assert not os.path.exists("/fora-corrida")


def test_a_call_decided_on_target_memory_is_never_continued(tmp_path, monkeypatch):
    """The guard under the harness: whatever a handler returns, a call whose handling read the
    caller's memory is refused rather than handed back to the kernel (which would read it again)."""
    import ctypes
    import errno

    from graders.trace.kernel.seccomp import FLAG_CONTINUE, NOTIF
    from graders.trace.kernel.supervisor import Supervisor

    sup = Supervisor([("work", str(tmp_path))], reduced=False, source="", filename="x.py", job={})
    answers = []
    monkeypatch.setattr(sup, "respond", lambda nid, value=0, error=0, flags=0: answers.append((value, error, flags)))
    path = ctypes.create_string_buffer(b"/fora-corrida")
    nr = syscall_nr("unlink")
    raw = NOTIF.pack(7, os.getpid(), 0, nr, 0xC000003E, 0, ctypes.addressof(path), 0, 0, 0, 0, 0)

    def checked_then_continued(nid, task, args):
        sup.read_path(task.tid, args[0])
        return "continue"

    sup.handlers[nr] = checked_then_continued
    sup.handle(raw)
    assert answers == [(0, errno.EACCES, 0)]
    (refused,) = [e for e in sup.events if e.kind == "refused"]
    assert refused.payload["call"] == "unlink" and "memória" in refused.payload["message"]

    sup.handlers[nr] = lambda nid, task, args: "continue"  # decided on registers alone: the kernel may run it
    sup.handle(raw)
    assert answers[-1] == (0, 0, FLAG_CONTINUE)



def test_no_handler_can_hand_a_checked_path_back_to_the_kernel():
    """The answer that let the kernel re-read a path the supervisor had looked at is gone."""
    kernel = HERE.parents[1] / "graders" / "trace" / "kernel"
    for source in kernel.glob("*.py"):
        assert "continue_read" not in source.read_text(), source.name


def test_look_only_calls_after_the_code_started_are_never_continued(tmp_path, monkeypatch):
    """Reduced mode, after the runner asked for the student's code: stat, access, readlink, statfs
    and read-only opens are answered by the supervisor (a value, an error, or a descriptor), never
    with SECCOMP_USER_NOTIF_FLAG_CONTINUE; chdir is continued without anything being read."""
    import ctypes

    from graders.trace.kernel.seccomp import FLAG_CONTINUE, NOTIF
    from graders.trace.kernel.supervisor import Supervisor

    work, tmp = tmp_path / "w", tmp_path / "t"
    work.mkdir()
    tmp.mkdir()
    (work / "f").write_text("dentro")
    os.symlink("f", work / "elo")
    sup = Supervisor([("work", str(work)), ("tmp", str(tmp))], reduced=True, source="", filename="x.py", job={})
    sup.code_started = True
    answers = []
    monkeypatch.setattr(sup, "respond", lambda nid, value=0, error=0, flags=0: answers.append((nid, value, error, flags)))
    monkeypatch.setattr(sup, "valid", lambda nid: True)  # no listener here: every caller is alive
    installed = []  # (nid, our descriptor's path): what SECCOMP_IOCTL_NOTIF_ADDFD would install

    def install(nid, fd, flags):
        installed.append((nid, os.readlink(f"/proc/self/fd/{fd}")))
        os.close(fd)
        sup.respond(nid, value=1000)

    monkeypatch.setattr(sup, "_install", install)
    out = ctypes.create_string_buffer(4096)
    paths = {name: ctypes.create_string_buffer(name.encode()) for name in
             (str(work / "f"), str(work / "elo"), "/usr", "/etc/hostname", "/tmp/nada", "/proc/self/status")}
    calls = []
    for path, buf in paths.items():
        address = ctypes.addressof(buf)
        calls += [("stat", [address, ctypes.addressof(out)]), ("lstat", [address, ctypes.addressof(out)]),
                  ("access", [address, os.R_OK]), ("readlink", [address, ctypes.addressof(out), 100]),
                  ("statfs", [address, ctypes.addressof(out)]),
                  ("newfstatat", [AT_FDCWD & 0xFFFFFFFF, address, ctypes.addressof(out), 0]),
                  ("openat", [AT_FDCWD & 0xFFFFFFFF, address, os.O_RDONLY, 0]),
                  ("openat", [AT_FDCWD & 0xFFFFFFFF, address, O_PATH, 0])]
    for nid, (name, args) in enumerate(calls, 1):
        args = args + [0] * (6 - len(args))
        sup.handle(NOTIF.pack(nid, os.getpid(), 0, syscall_nr(name), 0xC000003E, 0, *args))
    assert {a[0] for a in answers} == set(range(1, len(calls) + 1))  # every call answered
    assert not [a for a in answers if a[3] & FLAG_CONTINUE], [calls[a[0] - 1][0] for a in answers if a[3]]
    stats = [a for a in answers if calls[a[0] - 1][0] == "stat" and a[2] == 0]
    assert len(stats) == 5  # all but /tmp/nada (the run's own /tmp has no such name)
    opened = {calls[nid - 1][1][1]: name for nid, name in installed}
    assert opened[ctypes.addressof(paths[str(work / "elo")])] == str(work / "f")
    assert opened[ctypes.addressof(paths["/proc/self/status"])] == f"/proc/{os.getpid()}/status"
    chdir = ctypes.create_string_buffer(b"/tmp")
    sup.handle(NOTIF.pack(99, os.getpid(), 0, syscall_nr("chdir"), 0xC000003E, 0, ctypes.addressof(chdir),
                          0, 0, 0, 0, 0))
    assert answers[-1] == (99, 0, 0, FLAG_CONTINUE) and not sup.read_target
