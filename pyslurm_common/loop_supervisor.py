"""A daemon's background loops, run as one supervised group.

A loop that raises, or returns while the daemon is not stopping, is a fault the daemon cannot
serve through: the controller would go on answering RPCs while, say, no job ever starts again.
So the first loop to die ends the whole group with `LoopDied` (naming the loop and its error);
the daemon logs it on one line and exits non-zero, and systemd restarts it (the journal holds the
state). `alive()` is what the systemd watchdog is fed on, so a dead loop also starves it.

Fatal: any exception out of a loop. Not fatal: the loops ending because `stop` was set, or
being cancelled when the group's `until` completes (a controller handing over control).
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Coroutine, Mapping

log = logging.getLogger(__name__)


class LoopDied(Exception):
    def __init__(self, name: str, error: str) -> None:
        super().__init__(f"background loop '{name}' died: {error}")
        self.name, self.error = name, error


class LoopSupervisor:
    def __init__(self, stop: asyncio.Event) -> None:
        self.stop = stop
        self._tasks: list[asyncio.Task[None]] = []

    def alive(self) -> bool:
        """Whether every loop of the running group is still running (True when none runs)."""
        return not any(task.done() for task in self._tasks)

    async def run(self, loops: Mapping[str, Coroutine[Any, Any, None]], until: Awaitable[None]) -> None:
        """Run the named `loops` until `until` completes (then cancel them), or raise LoopDied
        for the first that dies, after cancelling the others."""
        try:
            async with asyncio.TaskGroup() as group:
                self._tasks = [group.create_task(self._guarded(name, loop), name=name)
                               for name, loop in loops.items()]
                await until
                for task in self._tasks:
                    task.cancel()
        except ExceptionGroup as failed:     # (not except*: what it raises would be grouped again)
            died = [exc for exc in failed.exceptions if isinstance(exc, LoopDied)]
            if not died:
                raise
            raise died[0] from None
        finally:
            self._tasks = []       # a controller may take charge again later, with new loops

    async def _guarded(self, name: str, loop: Coroutine[Any, Any, None]) -> None:
        try:
            await loop
        except Exception as exc:       # cancellation (a BaseException) is an orderly end
            log.debug("background loop '%s' failed", name, exc_info=True)
            raise LoopDied(name, f"{type(exc).__name__}: {exc}") from exc
        if not self.stop.is_set():
            raise LoopDied(name, "returned while the daemon was not stopping")
