# Included helpers for the round-6 cases (issue 40): libc's mapping calls through ctypes, and the
# reference solution's atomic save under another name, so a case can wrap or replace save_checkpoint.
import ctypes as _ct
import mmap as _mmap_mod

_libc = _ct.CDLL(None, use_errno=True)
_libc.mmap.restype = _ct.c_void_p
_libc.mmap.argtypes = [_ct.c_void_p, _ct.c_size_t, _ct.c_int, _ct.c_int, _ct.c_int, _ct.c_long]
_libc.mprotect.argtypes = [_ct.c_void_p, _ct.c_size_t, _ct.c_int]
_libc.munmap.argtypes = [_ct.c_void_p, _ct.c_size_t]
_libc.msync.argtypes = [_ct.c_void_p, _ct.c_size_t, _ct.c_int]
_libc.mremap.restype = _ct.c_void_p
_libc.mremap.argtypes = [_ct.c_void_p, _ct.c_size_t, _ct.c_size_t, _ct.c_int]
_PROT_READ, _PROT_WRITE = 1, 2
_MAP_SHARED, _MAP_PRIVATE = 1, 2
_MS_SYNC = 4
_MREMAP_MAYMOVE = 1
_MAP_FAILED = _ct.c_void_p(-1).value


def _mapear(length, prot, flags, fd):
    addr = _libc.mmap(None, length, prot, flags, fd, 0)
    if addr in (None, _MAP_FAILED):
        raise OSError(_ct.get_errno(), "mmap")
    return addr


def _ok(result, what):
    if result != 0:
        raise OSError(_ct.get_errno(), what)


def _texto(state):
    return json.dumps(state, ensure_ascii=False, indent=2).encode("utf-8")


_grava_atomico = save_checkpoint  # the reference solution's: temporary file, fsync, os.replace
