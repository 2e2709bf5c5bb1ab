"""Landlock through ctypes: the file-system, TCP and scope fence a student's process gets in reduced
mode (no namespaces needed, kernel >= 5.13). Built once per supervisor, applied in each child.
Our own module rather than a PyPI binding: three system calls with fixed structures, and the graders
take no dependency beyond the standard library."""

from __future__ import annotations

import ctypes
import fcntl
import os

from .linux import libc

# x86-64 and arm64 share these numbers (the generic table).
NR_CREATE_RULESET, NR_ADD_RULE, NR_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2

READ = EXECUTE | READ_FILE | READ_DIR
# The rights a rule on a file (not a folder) may carry.
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi() -> int | None:
    """The kernel's Landlock ABI version, or None (no Landlock, or refused by a seccomp profile)."""
    version = libc.syscall(NR_CREATE_RULESET, None, 0, CREATE_RULESET_VERSION)
    return version if version > 0 else None


def handled_fs(version: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: execute ... make_sym
    if version >= 2:
        rights |= REFER
    if version >= 3:
        rights |= TRUNCATE
    if version >= 5:
        rights |= IOCTL_DEV
    return rights


def ruleset(read: list[str], write: list[str], devices: dict[str, int],
            listable: list[str] = ()) -> tuple[int, int] | None:
    """(ruleset fd, ABI) allowing reads and execution beneath `read`, everything beneath `write`,
    `devices` {path: rights} for single files, listing (not reading) beneath `listable`, and no TCP,
    no signal or abstract socket leaving the domain where the ABI has them. None when this kernel
    has no Landlock. Missing paths are skipped."""
    version = abi()
    if version is None:
        return None
    fs = handled_fs(version)
    attr = _RulesetAttr(fs, NET_BIND_TCP | NET_CONNECT_TCP if version >= 4 else 0,
                        SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if version >= 6 else 0)
    size = 8 if version < 4 else 16 if version < 6 else 24
    fd = libc.syscall(NR_CREATE_RULESET, ctypes.byref(attr), size, 0)
    if fd < 0:
        return None
    try:
        for paths, rights in ((read, READ), (write, fs), (listable, READ_DIR)):
            for path in paths:
                _allow(fd, path, rights & fs)
        for path, rights in devices.items():
            _allow(fd, path, rights & fs & FILE_RIGHTS)
    except BaseException:
        os.close(fd)
        raise
    # Numbered above the 0-3 a child rebuilds before it restricts itself.
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high, version


def _allow(ruleset_fd: int, path: str, rights: int):
    try:
        target = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        rule = _PathBeneath(rights, target)
        if libc.syscall(NR_ADD_RULE, ruleset_fd, RULE_PATH_BENEATH, ctypes.byref(rule), 0) < 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
    finally:
        os.close(target)


def restrict_self(ruleset_fd: int) -> bool:
    """In the child, after PR_SET_NO_NEW_PRIVS and before exec: the fence holds from here on."""
    return libc.syscall(NR_RESTRICT_SELF, ruleset_fd, 0) == 0
