"""The fences of reduced mode (no bubblewrap): which user the supervisor and the submission run as
when the CLI is root, which interpreter that user can start, and the Landlock paths of a run."""

from __future__ import annotations

import functools
import grp
import json
import os
import pwd
import shutil
import subprocess
import sys

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


def _free_uid() -> int | None:
    busy = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                busy.add(os.stat(f"/proc/{name}").st_uid)
            except OSError:
                pass
    for uid in range(FIRST_UID, LAST_UID + 1):
        if uid in busy:
            continue
        try:
            pwd.getpwuid(uid)
            continue
        except KeyError:
            pass
        try:
            grp.getgrgid(uid)
            continue
        except KeyError:
            return uid
    return None


# Run by each candidate interpreter as the other user: can it start, import what the supervisor
# imports, and where are its site-packages (hidden from the submission, as bubblewrap hides them)?
_PROBE = ("import sys, json, site, ctypes, socket, select, resource, shutil, traceback\n"
          "sys.path.insert(0, sys.argv[1])\n"
          "try:\n import graders.trace.kernel; package = True\nexcept Exception:\n package = False\n"
          "print(json.dumps({'version': list(sys.version_info[:2]), 'prefix': sys.base_prefix, "
          "'site': site.getsitepackages(), 'package': package}))")


def _probe(python: str, package_parent: str, uid: int | None) -> dict | None:
    extra = {"user": uid, "group": uid, "extra_groups": []} if uid is not None else {}
    try:
        run = subprocess.run([python, "-I", "-S", "-B", "-c", _PROBE, package_parent], capture_output=True,
                             timeout=30, stdin=subprocess.DEVNULL, cwd="/", env={"LANG": "C.UTF-8"}, **extra)
        return json.loads(run.stdout) if run.returncode == 0 else None
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


@functools.lru_cache(maxsize=1)
def identity(python: str, package_parent: str) -> dict:
    """{"uid": int|None, "python": path, "prefix", "site": [...], "copy_package": bool, "problem": str}.
    uid None: the submission keeps the CLI's user (not root, or no way to start Python as another)."""
    here = _probe(python, package_parent, None) or {"prefix": sys.base_prefix, "site": [], "version": []}
    plain = {"uid": None, "python": python, "prefix": here["prefix"], "site": here["site"],
             "copy_package": False, "problem": ""}
    if os.getuid() != 0:
        return plain
    uid = _free_uid()
    if uid is None:
        return dict(plain, problem=f"nenhum uid livre entre {FIRST_UID} e {LAST_UID}")
    version = "%d.%d" % tuple(here["version"]) if here.get("version") else "3"
    candidates = [python] + [c for c in (f"/usr/local/bin/python{version}", f"/usr/bin/python{version}",
                                         shutil.which(f"python{version}")) if c]
    for candidate in dict.fromkeys(os.path.realpath(c) for c in candidates if os.path.exists(c)):
        found = _probe(candidate, package_parent, uid)
        if found and found["version"] == here.get("version", found["version"]):
            return {"uid": uid, "python": candidate, "prefix": found["prefix"], "site": found["site"],
                    "copy_package": not found["package"], "problem": ""}
    return dict(plain, problem=f"o Python ({python}) não abre para outro usuário (uma pasta sem permissão no caminho)")


def _beneath_except(top: str, hidden: list[str]) -> list[str]:
    """`top` itself, or (when a hidden path lies beneath it) its entries, recursively, minus the hidden."""
    if top in hidden:
        return []
    if not any(h.startswith(top.rstrip("/") + "/") for h in hidden):
        return [top]
    out = []
    try:
        names = sorted(os.listdir(top))
    except OSError:
        return []
    for name in names:
        out += _beneath_except(os.path.join(top, name), hidden)
    return out


def landlock_rules(python: str, prefix: str, site: list[str], writable: list[str]) -> dict:
    """{"read", "write", "devices"} for landlock.ruleset: the system folders bubblewrap shows and the
    interpreter's own, minus every site-packages (a fresh Python, as in bubblewrap mode)."""
    tops = []
    for path in (*SYSTEM, prefix, os.path.dirname(os.path.realpath(python))):
        if os.path.exists(path):
            tops.append(os.path.realpath(path))
    hidden = sorted({os.path.realpath(p) for p in site if os.path.isdir(p)}
                    | {p for p in ("/usr/lib/python3/dist-packages", "/usr/local/lib/python3/dist-packages")
                       if os.path.isdir(p)})
    read = []
    for top in sorted(set(tops), key=len):
        if any(top.startswith(t.rstrip("/") + "/") for t in tops if t != top):
            continue  # already beneath another top
        read += _beneath_except(top, hidden)
    # Debian's interpreter links sitecustomize.py to /etc/python3.X: unreadable, it would print an
    # error into every submission's output.
    version_etc = f"/etc/python{sys.version_info[0]}.{sys.version_info[1]}"
    if os.path.isdir(version_etc):
        read.append(version_etc)
    read.append("/proc")
    return {"read": read, "write": list(writable), "devices": dict(DEVICES)}


def fences_text(fences: dict) -> str:
    """The fences in plain Portuguese, for the `auto` warning and the report's header."""
    if fences.get("bubblewrap"):
        return "bubblewrap: sim (sistema à parte, sem rede); supervisor seccomp: sim"
    abi = fences.get("landlock")
    parts = ["bubblewrap: não"]
    if abi:
        scope = "; sinais e sockets abstratos contidos" if abi >= 6 else ""
        net = ", sem TCP" if abi >= 4 else ", TCP aberto (ABI antiga)"
        parts.append(f"Landlock: sim (ABI {abi}: lê só o sistema e o Python, escreve só nas pastas da correção{net}{scope})")
    else:
        parts.append("Landlock: não (o código dos alunos pode ler tudo o que o usuário da CLI lê)")
    if fences.get("uid_drop"):
        parts.append("outro usuário: sim (não é root)")
    elif os.getuid() == 0:
        parts.append("outro usuário: não (o código dos alunos roda como root, sem capacidades)")
    else:
        parts.append("outro usuário: não (roda como o usuário da CLI)")
    parts.append("supervisor seccomp: " + ("sim" if fences.get("seccomp") else "não"))
    return "; ".join(parts)
