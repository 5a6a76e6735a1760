"""Concurrent identical reads share one answer.

A dashboard or an operator polling ``GET jobs/`` from many workers at once asks the same question
many times over: each would fetch the job list from the controller and turn every job into JSON
(a 1,000-job list costs half a second of the event loop), so 100 of them queued for a minute.
A read that arrives while the same read (same caller, same token, same path and query) is being
answered waits for that answer instead; the answer is the cluster's state at a moment during
the waiting request's own life, as if it had been served then. Nothing is kept once the read is
answered: the next one asks again.
"""
from __future__ import annotations

import asyncio
from typing import Awaitable, Callable, Hashable

from .envelope import Outcome


class SharedReads:
    def __init__(self) -> None:
        self._flights: dict[Hashable, asyncio.Task[Outcome]] = {}

    async def answer(self, key: Hashable, produce: Callable[[], Awaitable[Outcome]]) -> Outcome:
        """The outcome of the read in flight under `key`, or of a new one. The read runs as its
        own task: a client that hangs up cancels only its own wait, not the others'."""
        flight = self._flights.get(key)
        if flight is None:
            flight = asyncio.ensure_future(produce())
            self._flights[key] = flight
            flight.add_done_callback(lambda done: self._landed(key, done))
        return await asyncio.shield(flight)

    def _landed(self, key: Hashable, flight: asyncio.Task[Outcome]) -> None:
        if self._flights.get(key) is flight:
            del self._flights[key]
        if not flight.cancelled():
            flight.exception()      # retrieved here, so one whose waiters all left logs no warning

    @property
    def in_flight(self) -> int:
        return len(self._flights)
