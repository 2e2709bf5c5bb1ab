"""Runs a command the way a container runs it: under a seccomp filter that refuses new namespaces
as Docker's default profile does (EPERM to unshare, setns, mount and clone with a CLONE_NEW* flag,
ENOSYS to clone3, so the C library falls back to clone). bubblewrap then cannot start.

    python tests/no_namespaces.py [--sem-landlock] COMMAND [ARG...]

--sem-landlock: the Landlock calls answer ENOSYS too, as on a kernel older than 5.13 (or a profile
that refuses them). `wrapper()` gives that prefix for subprocess calls. libseccomp through ctypes,
as the graders do.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys

ALLOW = 0x7FFF0000
CLONE_NEW = (0x80, 0x20000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
CMP_MASKED_EQ = 7
FLTATR_CTL_NNP = 3


def ERRNO(number: int) -> int:
    return 0x00050000 | number


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


def wrapper(landlock: bool = True) -> list[str]:
    return [sys.executable, os.path.abspath(__file__), *([] if landlock else ["--sem-landlock"])]


def load_filter(landlock: bool = True):
    lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_ArgCmp)]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    ctx = lib.seccomp_init(ALLOW)
    if os.getuid() == 0:
        lib.seccomp_attr_set(ctx, FLTATR_CTL_NNP, 0)  # Docker does not set no_new_privs either

    def rule(action, name, *cmps):
        nr = lib.seccomp_syscall_resolve_name(name.encode())
        array = (_ArgCmp * max(1, len(cmps)))(*[_ArgCmp(*c) for c in cmps])
        if lib.seccomp_rule_add_array(ctx, action, nr, len(cmps), array) < 0:
            raise OSError(f"seccomp_rule_add {name}")

    for name in ("unshare", "setns", "mount", "umount2", "pivot_root", "fsopen", "fsmount", "open_tree",
                 "move_mount"):
        rule(ERRNO(errno.EPERM), name)
    for bit in CLONE_NEW:
        rule(ERRNO(errno.EPERM), "clone", (0, CMP_MASKED_EQ, bit, bit))
    rule(ERRNO(errno.ENOSYS), "clone3")
    if not landlock:
        for name in ("landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"):
            rule(ERRNO(errno.ENOSYS), name)
    if lib.seccomp_load(ctx) < 0:
        raise OSError("seccomp_load")


if __name__ == "__main__":
    command = sys.argv[1:]
    with_landlock = command[:1] != ["--sem-landlock"]
    load_filter(with_landlock)
    command = command if with_landlock else command[1:]
    os.execvp(command[0], command)
