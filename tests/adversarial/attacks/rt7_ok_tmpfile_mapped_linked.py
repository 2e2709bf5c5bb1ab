# Honest: each checkpoint is an O_TMPFILE (no name, linkable) filled through a shared mapping,
# msync'ed and unmapped, fsync'ed, given a name with linkat(AT_SYMLINK_FOLLOW) through /proc/self/fd, and put in place
# with os.replace. Nothing is mapped once it has a name: a kill finds the old or the new checkpoint.
#@@INCLUDE:_solution.py@@
#@@INCLUDE:_rt6.py@@


def save_checkpoint(state):
    data = _texto(state)
    fd = os.open(".", os.O_TMPFILE | os.O_RDWR, 0o644)
    try:
        os.ftruncate(fd, len(data))
        addr = _mapear(len(data), _PROT_READ | _PROT_WRITE, _MAP_SHARED, fd)
        _ct.memmove(addr, data, len(data))
        _ok(_libc.msync(addr, len(data), _MS_SYNC), "msync")
        _ok(_libc.munmap(addr, len(data)), "munmap")
        os.fsync(fd)
        try:
            os.unlink("checkpoint.json.novo")
        except FileNotFoundError:
            pass
        # dst_dir_fd makes Python call linkat(AT_SYMLINK_FOLLOW); without it, os.link calls link(2),
        # which links the /proc entry itself and fails with EXDEV.
        here = os.open(".", os.O_RDONLY)
        try:
            os.link(f"/proc/self/fd/{fd}", "checkpoint.json.novo", dst_dir_fd=here, follow_symlinks=True)
        finally:
            os.close(here)
    finally:
        os.close(fd)
    os.replace("checkpoint.json.novo", "checkpoint.json")
    folder = os.open(".", os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
