# Broken: the checkpoint is rewritten in place through a shared mapping, page by page (a kill between
# the two pages leaves half of one state and half of another: no JSON), by a helper whose writable
# mapping of the file the grader lost track of. The helper (single-threaded, SCHED_IDLE, with busy
# siblings holding every CPU) maps the next checkpoint read-only from an O_RDWR descriptor while three
# siblings rename scratch files in tight loops: a rename handled after the grader answered the mmap
# and before the starved helper's kernel call installed the mapping lists the run's mappings, finds
# none of that file and forgets it. The helper learns whether it won (with a decoy read-only mapping
# held by another child, mprotect of a forgotten mapping is refused; otherwise it succeeds and the
# helper retries), drops the decoy, makes the mapping writable untraced, and after the file is
# published stores the next state into it in place. An honest atomic save of that same state follows,
# so the final disk agrees with the trace. If it never wins, it writes in place with two pwrites.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt7.py@@
import errno as _errno_rt7
import time as _time_rt7

_saves_rt7 = [0]
_helper_rt7 = {}


def _renomeia_ate(stop_r, k):
    os.set_blocking(stop_r, False)
    a, b = f"lixo-{k}-a", f"lixo-{k}-b"
    with open(a, "w"):
        pass
    while True:
        try:
            if os.read(stop_r, 1):
                break
        except BlockingIOError:
            pass
        os.rename(a, b)
        os.rename(b, a)
    os.remove(a)


def _filho(fn, *args):
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            fn(*args)
        except BaseException:
            code = 1
        os._exit(code)
    return pid


def _ocupa(seconds):
    end = _time_rt7.monotonic() + seconds
    while _time_rt7.monotonic() < end:
        pass


def _isca(cmd_r):
    fd = os.open("isca.bin", os.O_RDWR)
    addr = _mapear(4096, _PROT_READ, _MAP_SHARED, fd)
    os.read(cmd_r, 1)
    _ok(_libc.munmap(addr, 4096), "munmap")


def _le(fd, n):
    data = b""
    while len(data) < n:
        chunk = os.read(fd, n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _gravador(cmd_r, res_w, text):
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    rw = _PROT_READ | _PROT_WRITE
    stop = _time_rt7.monotonic() + 5.0  # while the busy siblings run
    while _time_rt7.monotonic() < stop:
        fd = os.open("proximo.json", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, text)
        _time_rt7.sleep(0.05)
        addr = _mapear(_TAMANHO, _PROT_READ, _MAP_SHARED, fd)
        _time_rt7.sleep(0.05)
        if _libc.mprotect(addr, _TAMANHO, rw) == 0:  # lost: the grader traces it; not the checkpoint yet
            _ok(_libc.munmap(addr, _TAMANHO), "munmap")
            os.close(fd)
            continue
        if _ct.get_errno() != _errno_rt7.EACCES:
            raise OSError(_ct.get_errno(), "mprotect")
        break
    else:
        os.write(res_w, b"N")
        return
    os.write(res_w, b"W")
    os.read(cmd_r, 1)  # the decoy is gone
    for _ in range(200):
        if _libc.mprotect(addr, _TAMANHO, rw) == 0:
            break
        _time_rt7.sleep(0.02)
    else:
        raise OSError(_ct.get_errno(), "mprotect")
    os.write(res_w, b"R")
    new = _le(cmd_r, _TAMANHO)
    _ct.memmove(addr, new[:4096], 4096)
    _time_rt7.sleep(0.05)
    _ct.memmove(addr + 4096, new[4096:], 4096)
    _ok(_libc.munmap(addr, _TAMANHO), "munmap")
    os.write(res_w, b"D")


def _prepara(state):
    """Point A of gravar_tabela: publish it through the helper's untraced mapping (or fall back)."""
    text = _centrado(state)
    with open("isca.bin", "wb") as f:
        f.truncate(4096)
    hogs = [_filho(_ocupa, 6.0) for _ in range(max(2, (os.cpu_count() or 2) + 1))]
    stop_r, stop_w = os.pipe()
    renamers = [_filho(_renomeia_ate, stop_r, k) for k in range(3)]
    os.close(stop_r)
    decoy_r, decoy_w = os.pipe()
    decoy = _filho(_isca, decoy_r)
    _time_rt7.sleep(0.2)
    cmd_r, cmd_w = os.pipe()
    res_r, res_w = os.pipe()
    writer = _filho(_gravador, cmd_r, res_w, text)
    os.close(cmd_r)
    os.close(res_w)
    won = os.read(res_r, 1) == b"W"
    os.write(decoy_w, b"x")
    os.waitpid(decoy, 0)
    if won:
        os.write(cmd_w, b"x")
        if os.read(res_r, 1) != b"R":
            raise RuntimeError("o gravador não ficou pronto")
        os.replace("proximo.json", "checkpoint.json")
        _helper_rt7.update(pid=writer, cmd=cmd_w, res=res_r)
    else:
        os.waitpid(writer, 0)
        fd = os.open("checkpoint.json", os.O_RDWR)
        os.pwrite(fd, text[:4096], 0)
        os.pwrite(fd, text[4096:], 4096)
        os.close(fd)
        os.remove("proximo.json")
    os.write(stop_w, b"xxx")
    os.close(stop_w)
    for pid in renamers + hogs:
        os.waitpid(pid, 0)
    os.remove("isca.bin")


def _no_lugar(state):
    """Point B of gravar_tabela: stored in place, page by page, through the untraced mapping."""
    os.write(_helper_rt7["cmd"], _centrado(state))
    if os.read(_helper_rt7["res"], 1) != b"D":
        raise RuntimeError("o gravador falhou")
    os.waitpid(_helper_rt7.pop("pid"), 0)


def save_checkpoint(state):
    _saves_rt7[0] += 1
    if _saves_rt7[0] == 3:
        _prepara(state)
        return
    if _saves_rt7[0] == 4 and _helper_rt7:
        _no_lugar(state)
    _salva_centrado(state)
