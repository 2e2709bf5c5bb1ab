"""Look-only calls under a race, in both modes: another thread of the run rewrites the path of a
stat, statx, lstat, open, readlink or access call, many times over, between a name of its own and a
decoy it may not reach: files in the machine's /tmp (the run sees its own temp folder there, empty of
them) and, when the tests run as root, a root-only file (0600) outside every root. In reduced mode the
supervisor copies the path once and performs the call itself in a thread fenced as the run is
(graders/trace/kernel/looks.py), so the run never gets a decoy's contents, size or inode, and every
answer is the one its own name gives. A supervisor that let the kernel read the path again
(SECCOMP_USER_NOTIF_FLAG_CONTINUE after looking at it) hands out the decoys' metadata: stat, readlink
and access are not fenced by Landlock."""

from __future__ import annotations

import json
import os
import platform
import secrets
import shutil
from pathlib import Path

import pytest

from graders.sandbox.sandbox import Sandbox
from graders.trace.kernel.seccomp import syscall_nr

JOB = {"function": "save_checkpoint", "states": [{"n": 1}]}
SECRET = "segredo da máquina, fora de todas as pastas da correção "
N = 1500  # calls per race

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="layout de struct stat do x86-64")

PROBE = r'''
import ctypes, errno, json, os, struct, threading

libc = ctypes.CDLL(None, use_errno=True)
NR_NEWFSTATAT = @@NEWFSTATAT@@
AT_FDCWD, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS = -100, 0x100, 0x7FF
FILE_DECOYS = @@FILE_DECOYS@@
LINK_DECOY = @@LINK_DECOY@@
N = @@N@@


def err():
    return "E" + errno.errorcode.get(ctypes.get_errno(), "?")


def flipped(names, call):
    """`call(buffer)` N times while another thread rewrites the buffer through `names`."""
    buf = ctypes.create_string_buffer(max(map(len, names)) + 1)
    buf.value = names[0]
    stop = threading.Event()

    def flip():
        while not stop.is_set():
            for name in names:
                buf.value = name

    thread = threading.Thread(target=flip)
    thread.start()
    seen = {}
    try:
        for _ in range(N):
            answer = json.dumps(call(buf))
            seen[answer] = seen.get(answer, 0) + 1
    finally:
        stop.set()
        thread.join()
    return seen


def stat_call(flags):
    def call(buf):
        st = ctypes.create_string_buffer(144)
        if libc.syscall(NR_NEWFSTATAT, AT_FDCWD, buf, st, flags) != 0:
            return err()
        return list(struct.unpack_from("<Q", st.raw, 8) + struct.unpack_from("<q", st.raw, 48))  # ino, size
    return call


def statx_call(buf):
    sx = ctypes.create_string_buffer(256)
    if libc.statx(AT_FDCWD, buf, 0, STATX_BASIC_STATS, sx) != 0:
        return err()
    return list(struct.unpack_from("<QQ", sx.raw, 32))  # ino, size


def open_call(buf):
    fd = libc.open(buf, os.O_RDONLY)
    if fd < 0:
        return err()
    try:
        return os.read(fd, 200).decode("utf-8", "replace")
    except OSError as e:  # a torn name can be a folder: "/dev/shm" + the end of "nada.txt"
        return "E" + errno.errorcode.get(e.errno, "?")
    finally:
        os.close(fd)


def readlink_call(buf):
    out = ctypes.create_string_buffer(200)
    got = libc.readlink(buf, out, 200)
    return err() if got < 0 else out.raw[:got].decode("utf-8", "replace")


def access_call(buf):
    return "ok" if libc.access(buf, os.R_OK) == 0 else err()


def save_checkpoint(state):
    with open("dentro.txt", "w") as f:
        f.write("dentro")
    os.symlink("dentro.txt", "elo")
    own = {"stat": stat_call(0)(ctypes.c_char_p(b"dentro.txt")), "lstat": stat_call(AT_SYMLINK_NOFOLLOW)(
        ctypes.c_char_p(b"elo"))}
    races = {}
    first = FILE_DECOYS[:1]
    for own_name in (b"nada.txt", b"dentro.txt"):
        key = own_name.decode()
        races["stat " + key] = flipped([own_name] + first, stat_call(0))
        races["lstat " + key] = flipped([own_name] + first, stat_call(AT_SYMLINK_NOFOLLOW))
        races["statx " + key] = flipped([own_name] + first, statx_call)
        races["access " + key] = flipped([own_name] + first, access_call)
        races["open " + key] = flipped([own_name] + FILE_DECOYS, open_call)
    races["readlink nada.txt"] = flipped([b"nada.txt", LINK_DECOY], readlink_call)
    races["readlink elo"] = flipped([b"elo", LINK_DECOY], readlink_call)
    print("LOOKRACE " + json.dumps({"own": own, "races": races}))
'''


@pytest.fixture(scope="module")
def decoys():
    token = secrets.token_hex(6)
    secret = (SECRET * 80)[:4321]  # a size no file of the run has
    made = []
    isca = Path("/tmp") / f"isca-{token}"
    isca.write_text(secret)
    os.chmod(isca, 0o644)  # readable by any user: only the fences keep it from the run
    elo = Path("/tmp") / f"elo-{token}"
    os.symlink(f"segredo-{token}", elo)
    made += [isca, elo]
    files = [str(isca)]
    folder = None
    if os.geteuid() == 0:
        shm = "/dev/shm" if os.path.isdir("/dev/shm") else "/var/tmp"
        folder = Path(shm) / f"corrida-{token}"
        folder.mkdir(mode=0o755)
        root_only = folder / "segredo"
        root_only.write_text(secret)
        os.chmod(root_only, 0o600)
        files.append(str(root_only))
    keys = {(os.stat(f).st_ino, os.stat(f).st_size) for f in files}
    yield {"files": files, "link": str(elo), "secret": secret, "keys": keys,
           "link_text": os.readlink(elo)}
    for path in made:
        path.unlink(missing_ok=True)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def seen(decoys):
    source = (PROBE.replace("@@NEWFSTATAT@@", str(syscall_nr("newfstatat")))
              .replace("@@FILE_DECOYS@@", repr([f.encode() for f in decoys["files"]]))
              .replace("@@LINK_DECOY@@", repr(decoys["link"].encode())).replace("@@N@@", str(N)))
    out = {}
    for mode in ("reduced", "isolated"):
        if mode == "isolated" and not shutil.which("bwrap"):
            continue
        with Sandbox(isolated=mode == "isolated") as box:
            trace = box.run(source, "aluno.py", JOB, timeout=300.0)  # reduced mode takes ~100 s here
        line = next((x for x in trace.output.splitlines() if x.startswith("LOOKRACE ")), None)
        assert line, (mode, trace.end, trace.output[-3000:])
        out[mode] = json.loads(line[len("LOOKRACE "):])
    return out


def _answers(race: dict) -> set:
    return {json.dumps(json.loads(answer)) for answer in race}


def test_no_decoy_reaches_the_run(seen, decoys):
    for mode, got in seen.items():
        for name, race in got["races"].items():
            for answer in race:
                value = json.loads(answer)
                assert not (isinstance(value, str) and decoys["secret"][:40] in value), (mode, name)
                assert not (isinstance(value, list) and tuple(value) in decoys["keys"]), (mode, name, value)
                assert value != decoys["link_text"], (mode, name)


def test_every_answer_is_the_one_the_runs_own_name_gives(seen):
    for mode, got in seen.items():
        races, own = got["races"], got["own"]
        # A name that does not exist, flipped with decoys that do: only "no such file".
        for call in ("stat", "lstat", "statx", "access", "readlink"):
            assert _answers(races[f"{call} nada.txt"]) == {'"EENOENT"'}, (mode, call, races[f"{call} nada.txt"])
        # An open may also have copied the root-only decoy's name: Landlock refuses it (reduced mode;
        # under bubblewrap that folder is not there at all). A name torn while the flipper rewrites it
        # can also be "/dev/shm" itself (the first eight bytes of the decoy, then the end of "nada.txt"):
        # the run's own empty /dev/shm, a folder, which read() refuses.
        assert _answers(races["open nada.txt"]) <= {'"EENOENT"', '"EEACCES"', '"EEISDIR"'}, (
            mode, races["open nada.txt"])
        # The run's own file, flipped with the same decoys: its own answer or "no such file".
        assert _answers(races["stat dentro.txt"]) <= {json.dumps(own["stat"]), '"EENOENT"'}, (mode, races)
        assert _answers(races["statx dentro.txt"]) <= {json.dumps(own["stat"]), '"EENOENT"'}, (mode, races)
        assert _answers(races["lstat dentro.txt"]) <= {json.dumps(own["stat"]), '"EENOENT"'}, (mode, races)
        assert _answers(races["access dentro.txt"]) <= {'"ok"', '"EENOENT"'}, (mode, races)
        assert _answers(races["open dentro.txt"]) <= {'"dentro"', '"EENOENT"', '"EEACCES"', '"EEISDIR"'}, (
            mode, races)
        assert _answers(races["readlink elo"]) <= {'"dentro.txt"', '"EENOENT"'}, (mode, races)
        assert own["lstat"] != own["stat"]  # the link itself, not what it names
