"""The sandboxes of a batch, handed out in the order of the files: the lowest job waiting gets the
next free one, whichever thread the scheduler wakes first."""

from __future__ import annotations

import heapq
import threading


class Turns:
    """A pool of sandboxes served in job order (a FIFO queue serves whichever waiting thread wakes
    first: under load a later file's infinite loop could take the sandbox an earlier file was waiting
    for, and progress, and an interrupted batch's report, would no longer follow the class's files)."""

    def __init__(self, items=()):
        self._free = list(items)
        self._waiting: list[int] = []
        self._changed = threading.Condition()

    def get(self, order: int):
        """The next free sandbox once no lower `order` is waiting; `order` is unique per waiting job."""
        with self._changed:
            heapq.heappush(self._waiting, order)
            while not (self._free and self._waiting[0] == order):
                self._changed.wait()
            heapq.heappop(self._waiting)
            self._changed.notify_all()  # the next order in line may be served by another free one
            return self._free.pop()

    def put(self, item):
        with self._changed:
            self._free.append(item)
            self._changed.notify_all()

    def free(self) -> int:
        with self._changed:
            return len(self._free)
