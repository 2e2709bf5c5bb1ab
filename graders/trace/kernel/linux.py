"""The Linux interfaces the tap needs and Python's os module lacks: libc through ctypes, flag
values and the structures some calls take."""

from __future__ import annotations

import ctypes

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.process_vm_readv.restype = ctypes.c_ssize_t
libc.process_vm_readv.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p,
                                  ctypes.c_ulong, ctypes.c_ulong]
libc.process_vm_writev.restype = ctypes.c_ssize_t
libc.process_vm_writev.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p,
                                   ctypes.c_ulong, ctypes.c_ulong]
libc.pthread_create.argtypes = [ctypes.POINTER(ctypes.c_ulong), ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
libc.pthread_join.argtypes = [ctypes.c_ulong, ctypes.c_void_p]

PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_CHILD_SUBREAPER, PR_CAPBSET_DROP = 4, 38, 36, 24
PR_SET_SECCOMP, PR_SET_NAME = 22, 15
AT_FDCWD = -100
AT_SYMLINK_FOLLOW, AT_REMOVEDIR, AT_EMPTY_PATH = 0x400, 0x200, 0x1000
O_TMPFILE_BIT = 0o20000000
O_PATH = 0o10000000
RWF_DSYNC, RWF_SYNC, RWF_APPEND, RWF_NOAPPEND = 2, 4, 16, 32
RESOLVE_NO_XDEV, RESOLVE_NO_MAGICLINKS, RESOLVE_NO_SYMLINKS, RESOLVE_BENEATH = 1, 2, 4, 8
MAP_SHARED, MAP_FIXED, MAP_ANONYMOUS = 0x01, 0x10, 0x20
CLONE_VM, CLONE_FS, CLONE_FILES, CLONE_VFORK, CLONE_THREAD = 0x100, 0x200, 0x400, 0x4000, 0x10000
CLONE_PARENT = 0x8000
CLONE_NEW = (0x80, 0x20000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
AF_UNIX = 1
FICLONE, FICLONERANGE, FIDEDUPERANGE = 0x40049409, 0x4020940D, 0xC0189436
U32 = 0xFFFFFFFF


def s32(value: int) -> int:
    value &= U32
    return value - (1 << 32) if value & 0x80000000 else value


class Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


class OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]

