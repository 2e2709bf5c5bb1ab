"""Where reduced mode must show the disk bubblewrap mode shows: there the temp folder is a file
system of its own (a tmpfs on /tmp), so a rename or link between it and the home folder fails
with EXDEV; in reduced mode every root sits on one file system and the supervisor says so itself."""

from __future__ import annotations

import errno


def check_same_filesystem(sup, parent_a: str, parent_b: str, call: str):
    """Raise EXDEV (as the kernel does across mounts) when the two folders lie in roots that
    bubblewrap mode mounts apart: the temp folder on one side, home or work on the other."""
    if not sup.reduced:
        return  # the kernel itself answers EXDEV there
    a, b = sup.root_for(parent_a), sup.root_for(parent_b)
    if a is not None and b is not None and _mount(a[0]) != _mount(b[0]):
        raise OSError(errno.EXDEV, call)


def _mount(role: str) -> str:
    """The mount a root lies on under bubblewrap: /tmp and /dev/shm are tmpfs of their own."""
    return role if role in ("tmp", "shm") else "home"
