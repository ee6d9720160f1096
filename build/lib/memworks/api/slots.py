"""Places for each tenant's requests to run in one API process, with a bounded queue for each."""

from __future__ import annotations

from collections import deque

import anyio

#: Longest a request waits for one of its tenant's places before it is refused (seconds).
QUEUE_WAIT_S = 10.0


class TenantSlots:
    """Places for each tenant's requests to run in this process, and a queue for each.

    A request over a tenant's places waits for one, first come first served, in the event loop
    (it holds no thread meanwhile); :meth:`leave` hands a freed place to the first waiter. Used
    from the event loop only.
    """

    def __init__(self, wait_s: float = QUEUE_WAIT_S) -> None:
        self._running: dict[str, int] = {}
        self._queues: dict[str, deque[anyio.Event]] = {}
        self.wait_s = wait_s

    async def enter(self, tenant_id: str, places: int, queue: int) -> bool:
        """Take a place (0 places: no limit), waiting up to ``wait_s`` behind at most ``queue``
        others; False when the queue is full or the wait ran out (nothing taken)."""
        waiting = self._queues.get(tenant_id)
        if not places or (self._running.get(tenant_id, 0) < places and not waiting):
            self._running[tenant_id] = self._running.get(tenant_id, 0) + 1
            return True
        if waiting is None:
            waiting = self._queues[tenant_id] = deque()
        if len(waiting) >= queue:
            return False
        handed = anyio.Event()
        waiting.append(handed)
        try:
            with anyio.move_on_after(self.wait_s):
                await handed.wait()
        except BaseException:
            self._give_up(tenant_id, handed)
            raise
        if handed.is_set():
            return True
        self._give_up(tenant_id, handed)
        return False

    def _give_up(self, tenant_id: str, handed: anyio.Event) -> None:
        if handed.is_set():  # a place was handed over that will not be used
            self.leave(tenant_id)
            return
        waiting = self._queues.get(tenant_id)
        if waiting is not None:
            waiting.remove(handed)
            if not waiting:
                del self._queues[tenant_id]

    def leave(self, tenant_id: str) -> None:
        """Free a place: the first waiter of the tenant takes it, else it is given back."""
        waiting = self._queues.get(tenant_id)
        if waiting:
            waiting.popleft().set()
            if not waiting:
                del self._queues[tenant_id]
            return
        n = self._running.get(tenant_id, 0) - 1
        if n > 0:
            self._running[tenant_id] = n
        else:
            self._running.pop(tenant_id, None)

    def running(self, tenant_id: str) -> int:
        return self._running.get(tenant_id, 0)

    def waiting(self, tenant_id: str | None = None) -> int:
        """Requests waiting for a place: the tenant's, or all of them."""
        if tenant_id is not None:
            return len(self._queues.get(tenant_id, ()))
        return sum(len(q) for q in self._queues.values())
