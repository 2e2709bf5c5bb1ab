"""Shared harness for the adversarial suite: hostile submissions against `python -m graders`.

Every test builds an *arena* in a temporary folder:

- ``instructor/``: a private copy of ``graders/`` and ``exercises/``; the CLI runs with it
  as cwd, so an attack that reaches "the grader's files" only damages the copy (which we
  then compare with the original), never the shared working tree. It also holds decoy and
  secret files, as an instructor's folder would (``notas.csv``, ``segredo-do-professor.txt``).
- ``home/``: the ``$HOME`` given to the CLI, with a decoy and a secret.
- ``fora/``: decoy files, one per escape vector, outside every submission's folder.
- ``entregas-<uid>/``: the submissions: rendered attacks plus the reference solution as a
  sibling (carrying a unique token in its source text).

Attacks live in ``attacks/*.py`` as templates: ``@@KEY@@`` inside string literals is
replaced by the arena's values, and a line ``#@@INCLUDE:_name.py@@`` by that file.

Nothing here kills anything but processes the test itself caused (found by a unique marker
in their argv, or the CLI's own process group, which the test started).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import no_namespaces
from conftest import ROOT

HERE = Path(__file__).resolve().parent
ATTACKS = HERE / "attacks"
SOLUTION = ROOT / "exercises" / "nivel-2" / "solution.py"
STARTER = ROOT / "exercises" / "nivel-2" / "starter.py"
CODE_CRITERIA = ["escrita-atomica", "ponto-a", "seis-campos", "executavel"]
FORGE_TARGETS = ("escrita-atomica", "ponto-a")  # what the starter really fails
REPORT_LIMIT_PER_FILE = 2 * 1024 * 1024
# A line of the host's /etc/passwd that the sandbox's own small passwd does not have (its root line
# is the usual one): a sandboxed submission must not be able to read it.
try:
    from graders.sandbox.sandbox import PASSWD as _SANDBOX_PASSWD

    PASSWD_LINE = next((line for line in Path("/etc/passwd").read_text().splitlines()
                        if line and line not in _SANDBOX_PASSWD.splitlines()), "")
except OSError:  # pragma: no cover - every Linux has it
    PASSWD_LINE = ""
HOST_PIDNS = os.readlink("/proc/self/ns/pid") if os.path.exists("/proc/self/ns/pid") else ""

# Isolation modes under test: None = the CLI's default (auto), else the --isolamento value.
# The guarantees these attacks test are the sandbox's (PROFESSORES.md, "Isolamento"); reduced mode promises less.
MODES = [None]
# The container case: `auto` under a filter that refuses namespaces as Docker's default profile does
# (tests/no_namespaces.py), so bubblewrap is refused and reduced mode's fences must hold instead.
CONTAINER = "conteiner"
ISOLATION_MODES = MODES + [CONTAINER]
_CONTAINER_ARG = "@conteiner"  # run_cli's cue to start the CLI under that filter


def mode_args(mode):
    if mode == CONTAINER:
        return [_CONTAINER_ARG]
    return [] if mode is None else ["--isolamento", mode]


def mode_id(mode):
    return "auto" if mode is None else mode


@dataclass
class Arena:
    base: Path
    uid: str
    instructor: Path
    home: Path
    outside: Path
    subs: Path
    params: dict = field(default_factory=dict)
    # path -> bytes expected to stay exactly as they are
    decoys: dict = field(default_factory=dict)
    modes: dict = field(default_factory=dict)  # path -> st_mode expected to stay
    secrets: dict = field(default_factory=dict)  # label -> secret text
    tree_hash: str = ""
    watched_dirs: dict = field(default_factory=dict)  # dir -> sorted listing before

    # --- submissions -----------------------------------------------------------------

    def render(self, attack: str, name: str | None = None, **extra) -> Path:
        """Render attacks/<attack>.py into the submissions folder; return its path."""
        text = _expand((ATTACKS / f"{attack}.py").read_text(encoding="utf-8"))
        values = {**self.params, **{k.upper(): str(v) for k, v in extra.items()}}
        for key, value in values.items():
            text = text.replace(f"@@{key}@@", value)
        left = re.findall(r"@@[A-Z0-9_]+@@", text)
        assert not left, f"{attack}: unfilled placeholders {left}"
        target = self.subs / (name or f"{attack}.py")
        target.write_text(text, encoding="utf-8")
        return target

    def sibling(self, name: str = "vizinho_solucao.py") -> Path:
        """The reference solution, plus a unique token in its source text."""
        target = self.subs / name
        target.write_text(
            SOLUTION.read_text(encoding="utf-8")
            + f'\n\n# {self.secrets["sibling"]}\nVIZINHO = "{self.secrets["sibling"]}"\n',
            encoding="utf-8",
        )
        self.decoys[target] = target.read_bytes()
        return target

    def starter_copy(self, name: str = "starter_puro.py") -> Path:
        target = self.subs / name
        shutil.copyfile(STARTER, target)
        return target

    # --- after the CLI ------------------------------------------------------------------

    def changed_decoys(self) -> list[str]:
        """Decoys that changed or vanished, as 'path: what happened'."""
        problems = []
        for path, before in self.decoys.items():
            path = Path(path)
            if path.is_symlink():
                problems.append(f"{path}: became a symlink")
            elif not path.exists():
                problems.append(f"{path}: deleted")
            elif path.read_bytes() != before:
                problems.append(f"{path}: overwritten ({path.read_bytes()[:60]!r})")
            elif path in self.modes and path.stat().st_mode != self.modes[path]:
                problems.append(f"{path}: mode changed to {oct(path.stat().st_mode)}")
        return problems

    def litter(self) -> list[str]:
        """Files named with this test's marker in the machine's shared temporary folders
        (removed afterwards: they are this test's own doing)."""
        marker, found = self.params["MARKER"], []
        for top in ("/tmp", "/var/tmp", "/dev/shm"):
            for folder, dirs, names in os.walk(top):
                depth = folder[len(top):].count("/")
                dirs[:] = [d for d in dirs if depth < 4 and not d.startswith("pytest-of-")]
                for name in names + [d for d in dirs]:
                    if marker not in name:
                        continue
                    found.append(f"{folder}/{name}")
                    path = Path(folder) / name
                    if path.is_dir() and not path.is_symlink():
                        shutil.rmtree(path, ignore_errors=True)
                    else:
                        path.unlink(missing_ok=True)
        return found

    def new_entries(self) -> list[str]:
        """Files that appeared (or vanished) in the watched folders outside the submissions."""
        found = []
        for folder, before in self.watched_dirs.items():
            now = _listing(folder)
            found += [f"{folder}/{n}: created" for n in sorted(set(now) - set(before))]
            found += [f"{folder}/{n}: removed" for n in sorted(set(before) - set(now))]
        return found

    def grader_copy_changed(self) -> bool:
        return _tree_hash(self.instructor / "graders") != self.tree_hash


# The exercise's own starter and solution, included as they are (never copies that drift).
INCLUDED_FROM_EXERCISE = {"_solution.py": SOLUTION, "_starter.py": ROOT / "exercises" / "nivel-2" / "starter.py"}


def _expand(text: str) -> str:
    def include(match):
        path = INCLUDED_FROM_EXERCISE.get(match.group(1), ATTACKS / match.group(1))
        return _expand(path.read_text(encoding="utf-8"))

    return re.sub(r"^#@@INCLUDE:([\w.]+)@@$", include, text, flags=re.M)


def _listing(folder) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return ["<unreadable>"]


def _tree_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if "__pycache__" in path.parts or not path.is_file():
            continue
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _copy_graders(dest: Path):
    """graders/ and exercises/ from the working tree, or from a git revision when
    ADV_GRADERS_REV is set (read with `git archive`, which leaves the tree alone)."""
    rev = os.environ.get("ADV_GRADERS_REV")
    if rev:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "graders", "exercises"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
        return
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "graders", dest / "graders", ignore=ignore)
    shutil.copytree(ROOT / "exercises", dest / "exercises", ignore=ignore)


def make_arena(base: Path) -> Arena:
    uid = secrets.token_hex(6)
    base = Path(base)
    instructor, home, outside = base / "instructor", base / "home", base / "fora"
    subs = base / f"entregas-{uid}"
    for folder in (instructor, home, outside, subs):
        folder.mkdir(parents=True, exist_ok=True)
    _copy_graders(instructor)
    arena = Arena(base, uid, instructor, home, outside, subs)
    arena.tree_hash = _tree_hash(instructor / "graders")
    arena.secrets = {
        "env": f"SEGREDO-AMBIENTE-{secrets.token_hex(8)}",
        "cwd_file": f"SEGREDO-PASTA-{secrets.token_hex(8)}",
        "home_file": f"SEGREDO-HOME-{secrets.token_hex(8)}",
        "sibling": f"TOKEN-VIZINHO-{secrets.token_hex(8)}",
        "outside_file": f"SEGREDO-FORA-{secrets.token_hex(8)}",
    }
    files = {
        instructor / "notas.csv": f"aluno,nota\nfulano,7.5\n# DECOY-{uid}\n",
        instructor / "segredo-do-professor.txt": arena.secrets["cwd_file"] + "\n",
        home / ".bashrc": f"# DECOY-HOME-{uid}\n",
        home / "segredo.txt": arena.secrets["home_file"] + "\n",
        outside / "segredo.txt": arena.secrets["outside_file"] + "\n",
    }
    for vector in (
        "abs_open", "pathlib", "os_open_abs", "dirfd_open", "dirfd_unlink", "dirfd_rename",
        "symlink_write", "symlink_dir", "chdir_up", "hardlink", "hardlink_dirfd", "rename_in",
        "truncate", "shutil_copy", "proc_cwd", "spawn_shell", "fork_exec", "audit_swap",
        "posix_spawn", "os_system", "utime_chmod",
    ):
        files[outside / f"decoy_{vector}.txt"] = f"DECOY-{vector}-{uid}\n"
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
        arena.decoys[path] = text.encode("utf-8")
        arena.modes[path] = path.stat().st_mode
    for folder in (instructor, home, outside):
        arena.watched_dirs[str(folder)] = _listing(folder)
    arena.params = {
        "UID": uid,
        "OUTSIDE": str(outside),
        "OUTSIDE_REL": str(outside).lstrip("/"),
        "INSTRUCTOR": str(instructor),
        "INSTRUCTOR_REL": str(instructor).lstrip("/"),
        "HOME": str(home),
        "SUBS": str(subs),
        "HOST_PIDNS": HOST_PIDNS,
        "MARKER": f"ADVMARK{uid}",
        "CANARY": f"CANARIO-{secrets.token_hex(8)}",
    }
    return arena


# --- running the CLI ----------------------------------------------------------------------


@dataclass
class CliRun:
    cmd: list
    returncode: int | None
    stdout: bytes
    stderr: bytes
    elapsed: float
    timed_out: bool
    stdout_size: int
    leftovers: list  # (pid, cmdline) of marker processes still alive after the CLI ended

    @property
    def out(self) -> str:
        return self.stdout.decode("utf-8", "replace")

    @property
    def err(self) -> str:
        return self.stderr.decode("utf-8", "replace")

    def describe(self) -> str:
        return (
            f"cmd={self.cmd[3:]}\nrc={self.returncode} timed_out={self.timed_out} "
            f"elapsed={self.elapsed:.1f}s stdout={self.stdout_size}B\n"
            f"stderr (tail): {self.err[-1500:]}\nstdout (head): {self.out[:1500]}"
        )


READ_CAP = 64 * 1024 * 1024


def run_cli(arena: Arena, files, *args, fmt: str = "json", timeout: float = 180, jobs: int = 2,
            exercise: str = "nivel-2", env_extra: dict | None = None, wrapper: list | None = None) -> CliRun:
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": str(arena.home),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "SEGREDO_DO_PROFESSOR": arena.secrets["env"],
        **(env_extra or {}),
    }
    if _CONTAINER_ARG in args:
        args = tuple(a for a in args if a != _CONTAINER_ARG)
        wrapper = [*(wrapper or []), *no_namespaces.wrapper()]
    cmd = [*(wrapper or []), sys.executable, "-m", "graders", exercise, *map(str, files),
           "--format", fmt, "--jobs", str(jobs), *map(str, args)]
    out_path, err_path = arena.base / f"cli-{time.monotonic_ns()}.out", arena.base / f"cli-{time.monotonic_ns()}.err"
    start = time.monotonic()
    timed_out = False
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(cmd, cwd=arena.instructor, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, start_new_session=True)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc.pid)
            proc.wait()
    elapsed = time.monotonic() - start
    marker = arena.params["MARKER"]
    leftovers = wait_gone(marker, 3.0)
    kill_marked(marker)
    size = out_path.stat().st_size
    with open(out_path, "rb") as fh:
        stdout = fh.read(READ_CAP)
    with open(err_path, "rb") as fh:
        stderr = fh.read(READ_CAP)
    return CliRun(cmd, None if timed_out else proc.returncode, stdout, stderr, elapsed, timed_out, size, leftovers)


def _kill_group(pgid: int):
    """Kill the process group of the CLI this test started (and only it)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def marked_processes(marker: str) -> list[tuple[int, str]]:
    found = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmdline = fh.read().replace(b"\0", b" ").decode("utf-8", "replace")
            with open(f"/proc/{entry}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != b"Z":
            found.append((int(entry), cmdline[:200]))
    return found


def wait_gone(marker: str, grace: float) -> list[tuple[int, str]]:
    deadline = time.monotonic() + grace
    while True:
        found = marked_processes(marker)
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def kill_marked(marker: str):
    """Clean-up: kill, by pid, the processes that carry this test's unique marker."""
    for pid, _ in marked_processes(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


# --- reading the report ---------------------------------------------------------------------


def report(run: CliRun, files) -> list[dict]:
    """The JSON report's submissions, checked against the contract: one well-formed entry per file, in order."""
    assert not run.timed_out, "CLI did not finish in time\n" + run.describe()
    assert run.returncode in (0, 1, 2, 3), "unexpected exit code\n" + run.describe()
    try:
        document = json.loads(run.stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise AssertionError(f"stdout is not a JSON report ({exc})\n" + run.describe()) from None
    assert isinstance(document, dict) and {"report", "summary", "possible_copies"} <= set(document), run.describe()
    data = document.get("submissions")
    assert isinstance(data, list) and len(data) == len(files), "one entry per file\n" + run.describe()
    for entry, path in zip(data, files):
        assert isinstance(entry, dict), entry
        assert same_file(entry.get("file"), path), (entry.get("file"), str(path))
        assert entry.get("exercise") == "nivel-2"
        assert isinstance(entry.get("passed"), bool)
        # Every criterion of the exercise is listed; a .py is judged on the code ones only.
        graded = [c for c in entry["criteria"] if c.get("state") in ("ok", "falhou")]
        if "error" in entry:
            assert entry["passed"] is False and graded == []
            continue
        ids = [c.get("id") for c in graded]
        assert ids == CODE_CRITERIA, f"{path}: criteria {ids}"
        for c in entry["criteria"]:
            assert isinstance(c["passed"], bool) and isinstance(c.get("message"), str)
        assert entry["passed"] == all(c["passed"] for c in graded)
        size = len(json.dumps(entry, ensure_ascii=False).encode("utf-8"))
        assert size < REPORT_LIMIT_PER_FILE, f"{path}: report entry is {size} bytes"
    return data


def shown(text: str) -> str:
    """A name with its unprintable characters written as escapes, as a report may show it."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def same_file(reported, path) -> bool:
    """The report names the file exactly, or with unprintable characters escaped."""
    return isinstance(reported, str) and (reported == str(path) or reported == shown(str(path)))


def by_file(data: list[dict]) -> dict[str, dict]:
    return {Path(e["file"]).name: e for e in data}


def crit(entry: dict, cid: str) -> dict:
    return next(c for c in entry["criteria"] if c["id"] == cid)


def brief(entry: dict) -> str:
    if "error" in entry:
        return f"ERROR {entry['error'][:300]}"
    return "; ".join(f"{c['id']}={'ok' if c['passed'] else 'FAIL'}: {c['message'][:160]}" for c in entry["criteria"])


def assert_forged_nothing(entry: dict):
    """A starter-based attack must not pass what the starter truly fails. Stopped by a grader limit
    (output, operations, bytes written), it is reported as not graded: no criterion, no score."""
    if entry.get("limit") is True:
        assert entry["passed"] is False and entry["error"].startswith("limite do corretor")
        assert all(c["state"] == "não avaliado" for c in entry["criteria"]) and entry["score"]["grade"] is None
        return
    assert "error" not in entry, brief(entry)
    assert entry["passed"] is False, f"{entry['file']} PASSED: " + brief(entry)
    forged = [cid for cid in FORGE_TARGETS if crit(entry, cid)["passed"]]
    assert not forged, f"{Path(entry['file']).name} forged {forged}: " + brief(entry)


def assert_sibling_passes(data: list[dict], sibling: Path):
    entry = next(e for e in data if same_file(e["file"], sibling))
    assert entry["passed"] is True, f"sibling solution failed: {brief(entry)}"


def leaked(arena: Arena, run: CliRun, extra: tuple = ()) -> list[str]:
    """Secrets that appear anywhere in stdout or stderr."""
    text = run.out + "\n" + run.err
    found = [f"{label}={value}" for label, value in arena.secrets.items() if value in text]
    # Secrets can be smuggled out mangled; look for the random part too.
    for label, value in arena.secrets.items():
        tail = value.rsplit("-", 1)[-1]
        if tail in text and f"{label}={value}" not in found:
            found.append(f"{label} (random part {tail})")
    if PASSWD_LINE and PASSWD_LINE in text:
        found.append(f"/etc/passwd line {PASSWD_LINE!r}")
    found += [f"extra {s}" for s in extra if s in text]
    return found
