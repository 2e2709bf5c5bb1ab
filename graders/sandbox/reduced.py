"""The fences of reduced mode (no bubblewrap): which user the supervisor and the submission run as
when the CLI is root, which interpreter that user can start, and the Landlock paths of a run."""

from __future__ import annotations

import functools
import grp
import os
import pwd
import shutil
import stat
import sys
import sysconfig
import threading

from ..trace.kernel import landlock

# A range no distribution hands out (system users stop below 1000, people start at 1000 and rarely
# reach 60000; nobody is 65534): the first uid here with no account and no process is ours.
FIRST_UID, LAST_UID = 61000, 61999
DEVICES = {"/dev/null": landlock.READ_FILE | landlock.WRITE_FILE | landlock.TRUNCATE,
           "/dev/full": landlock.READ_FILE | landlock.WRITE_FILE,
           "/dev/zero": landlock.READ_FILE, "/dev/random": landlock.READ_FILE, "/dev/urandom": landlock.READ_FILE}
# What bubblewrap mode shows of the system (read-only); the same, read-only, in reduced mode.
SYSTEM = ("/usr", "/bin", "/lib", "/lib32", "/lib64", "/libx32", "/sbin")


@functools.lru_cache(maxsize=1)
def landlock_abi() -> int | None:
    return landlock.abi()


_CLAIMED: set[int] = set()
_CLAIM_LOCK = threading.Lock()


def claim_uid() -> int | None:
    """A uid of its own for one sandbox (its process limit is then that sandbox's alone): the first
    in the range with no account, no process and no other sandbox of this CLI. `release_uid` after."""
    busy = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                busy.add(os.stat(f"/proc/{name}").st_uid)
            except OSError:
                pass
    with _CLAIM_LOCK:
        for uid in range(FIRST_UID, LAST_UID + 1):
            if uid in busy or uid in _CLAIMED or _has_account(uid):
                continue
            _CLAIMED.add(uid)
            return uid
    return None


def release_uid(uid: int):
    with _CLAIM_LOCK:
        _CLAIMED.discard(uid)


def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        pass
    try:
        grp.getgrgid(uid)
        return True
    except KeyError:
        return False


def _open_to_others(path: str) -> bool:
    """Every folder on the way to `path` searchable, and `path` readable, by a user with no group
    in common with their owners: what the other user needs (checked from the modes, no process)."""
    path = os.path.realpath(path)
    parts = path.split("/")
    for i in range(2, len(parts)):
        try:
            if not os.stat("/".join(parts[:i]) or "/").st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return bool(mode & stat.S_IROTH) and (not stat.S_ISDIR(mode) or bool(mode & stat.S_IXOTH))


def _layout(python: str) -> dict:
    """Where an interpreter keeps its standard library and its site-packages (hidden from the
    submission), without starting it: this one's from sysconfig, another of the same version's
    from the usual Debian and upstream layouts."""
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    if python == _base_python():
        prefix = os.path.realpath(sys.base_prefix)
        site = {sysconfig.get_paths(vars={"base": prefix, "platbase": prefix}).get(key) for key in ("purelib", "platlib")}
    else:
        prefix = os.path.dirname(os.path.dirname(python))
        site = {f"{prefix}/lib/{version}/site-packages", f"{prefix}/lib/{version}/dist-packages",
                f"/usr/local/lib/{version}/dist-packages", f"/usr/lib/{version}/dist-packages"}
    return {"prefix": prefix, "stdlib": f"{prefix}/lib/{version}", "site": sorted(p for p in site if p)}


def _can_change_user() -> bool:
    """Root in a container may have lost CAP_SETUID/CAP_SETGID (`docker run --cap-drop ALL`)."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"CapEff:"):
                    effective = int(line.split()[1], 16)
                    needed = (1 << 6) | (1 << 7)  # CAP_SETGID, CAP_SETUID
                    return effective & needed == needed
    except (OSError, ValueError, IndexError):
        pass
    return False


def _base_python() -> str:
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


@functools.lru_cache(maxsize=1)
def identity(python: str, package_parent: str) -> dict:
    """{"uid": int|None, "python": path, "prefix", "site": [...], "copy_package": bool, "problem": str}.
    uid: a free uid exists (claim_uid then gives each sandbox its own); None: the submission keeps
    the CLI's user (not root, root without CAP_SETUID, or no Python another user can start: one under
    /root, say, and none of the same version elsewhere), and `problem` says why."""
    plain = dict(_layout(python), uid=None, python=python, copy_package=False, problem="")
    if os.getuid() != 0 or not os.path.exists(python):
        return plain
    if not _can_change_user():
        return dict(plain, problem="root sem as capacidades CAP_SETUID e CAP_SETGID (--cap-drop)")
    uid = claim_uid()
    if uid is None:
        return dict(plain, problem=f"nenhum uid livre entre {FIRST_UID} e {LAST_UID}")
    release_uid(uid)  # each sandbox claims its own (Sandbox._reduced); this one only says one exists
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    candidates = [python] + [c for c in (f"/usr/local/bin/python{version}", f"/usr/bin/python{version}",
                                         shutil.which(f"python{version}")) if c and os.path.exists(c)]
    for candidate in dict.fromkeys(os.path.realpath(c) for c in candidates):
        layout = _layout(candidate)
        if _open_to_others(candidate) and _open_to_others(layout["stdlib"]):
            package = os.path.join(package_parent, "graders", "trace", "kernel", "server.py")
            return dict(layout, uid=uid, python=candidate, copy_package=not _open_to_others(package), problem="")
    return dict(plain, problem=f"o Python ({python}) não abre para outro usuário (uma pasta sem permissão no caminho)")


def _beneath_except(top: str, hidden: list[str], opened: list[str]) -> list[str]:
    """`top` itself, or (when a hidden path lies beneath it) its entries, recursively, minus the
    hidden; the folders opened that way go to `opened` (they must stay listable: Python finds a
    module by listing its folder)."""
    if top in hidden:
        return []
    if not any(h.startswith(top.rstrip("/") + "/") for h in hidden):
        return [top]
    out = []
    try:
        names = sorted(os.listdir(top))
    except OSError:
        return []
    opened.append(top)
    for name in names:
        out += _beneath_except(os.path.join(top, name), hidden, opened)
    return out


def landlock_rules(python: str, prefix: str, site: list[str], writable: list[str]) -> dict:
    """{"read", "write", "devices", "listable"} for landlock.ruleset: the system folders bubblewrap
    shows and the interpreter's own, minus every site-packages (a fresh Python, as in bubblewrap mode)."""
    tops = []
    for path in (*SYSTEM, prefix, os.path.dirname(os.path.realpath(python))):
        if os.path.exists(path):
            tops.append(os.path.realpath(path))
    hidden = sorted({os.path.realpath(p) for p in site if os.path.isdir(p)}
                    | {p for p in ("/usr/lib/python3/dist-packages", "/usr/local/lib/python3/dist-packages")
                       if os.path.isdir(p)})
    read, listable = [], []
    for top in sorted(set(tops), key=len):
        if any(top.startswith(t.rstrip("/") + "/") for t in tops if t != top):
            continue  # already beneath another top
        read += _beneath_except(top, hidden, listable)
    # Debian's interpreter links sitecustomize.py to /etc/python3.X: unreadable, it would print an
    # error into every submission's output.
    version_etc = f"/etc/python{sys.version_info[0]}.{sys.version_info[1]}"
    if os.path.isdir(version_etc):
        read.append(version_etc)
    read.append("/proc")
    # The loader's cache (names of the system's libraries, all readable above): without it each
    # library is searched for in ~18 folders, each open a round trip to the supervisor.
    if os.path.isfile("/etc/ld.so.cache"):
        read.append("/etc/ld.so.cache")
    # Listing a folder opened above lists the hidden site-packages too (Landlock rights reach down a
    # tree): its names show, its files stay unreadable, so its .pth files are skipped.
    return {"read": read, "write": list(writable), "devices": dict(DEVICES), "listable": listable}


def fresh_python(folder: str, python: str) -> str:
    """The submission's interpreter: `python` started through a virtual environment of its own with no
    packages (a link and a pyvenv.cfg in `folder`), so it starts as a fresh install, the way bubblewrap
    mode hides the machine's site-packages: no .pth files to run at every start, and a package of the
    instructor's is not found (ModuleNotFoundError), with or without Landlock. Returns the link."""
    os.makedirs(os.path.join(folder, "bin"))
    with open(os.path.join(folder, "pyvenv.cfg"), "w", encoding="utf-8") as f:
        f.write(f"home = {os.path.dirname(python)}\ninclude-system-site-packages = false\n"
                f"version = {'.'.join(map(str, sys.version_info[:3]))}\n")
    link = os.path.join(folder, "bin", os.path.basename(python))
    os.symlink(python, link)
    return link


def fences_text(fences: dict) -> str:
    """The fences in plain Portuguese, for the `auto` warning and the report's header."""
    if fences.get("bubblewrap"):
        return "bubblewrap: sim (sistema à parte, sem rede); supervisor seccomp: sim"
    abi = fences.get("landlock")
    parts = ["bubblewrap: não"]
    if abi:
        scope = "; sinais e sockets abstratos contidos" if abi >= 6 else ""
        net = ", sem TCP" if abi >= 4 else ""  # the seccomp filter refuses non-UNIX sockets anyway
        parts.append(f"Landlock: sim (ABI {abi}: lê só o sistema e o Python, escreve só nas pastas da correção{net}{scope})")
    else:
        parts.append("Landlock: não (o código dos alunos pode ler tudo o que o usuário da CLI lê "
                     "e falar com sockets UNIX da máquina)")
    if fences.get("uid_drop"):
        parts.append("outro usuário: sim (não é root)")
    elif os.getuid() == 0:
        parts.append("outro usuário: não (o código dos alunos roda como root, sem capacidades)")
    else:
        parts.append("outro usuário: não (roda como o usuário da CLI)")
    parts.append("supervisor seccomp: " + ("sim" if fences.get("seccomp") else "não"))
    return "; ".join(parts)
