"""How a handler ends a call other than by answering it: Refused (the call fails in the target,
maybe with a "refused" event) and Stop (the whole run ends)."""

from __future__ import annotations

import errno


def errno_name(number: int) -> str:
    return errno.errorcode.get(number, str(number))


class Refused(Exception):
    """The call fails in the target with `number`; with `call`, a "refused" event says why."""

    def __init__(self, number: int, call: str = "", message: str = ""):
        self.number, self.call, self.message = number, call, message


class Stop(Exception):
    """The run must end now (`end`: "flood", "runaway", "protocol")."""

    def __init__(self, end: str, limits: dict | None = None):
        self.end, self.limits = end, limits or {}

