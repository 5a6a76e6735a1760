"""Which version of the association definitions the daemon serves, and waiting for the next.

A version is ``<instance>:<count>``: the instance is drawn when the daemon starts (a restarted
daemon may serve a database changed while it was down, so a controller holding a version of an
earlier instance always reloads), the count goes up with every committed sacctmgr change. The
controller's cache long-polls on it (``WatchAssociations``). Lives on the daemon's event loop.
"""
from __future__ import annotations

import asyncio
import secrets


class DefinitionVersions:
    def __init__(self) -> None:
        self._instance = secrets.token_hex(4)
        self._count = 0
        self._changed = asyncio.Event()

    @property
    def current(self) -> str:
        return f"{self._instance}:{self._count}"

    def bump(self) -> None:
        """A change was committed: a new version, and every waiter wakes."""
        self._count += 1
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def wait_past(self, known: str, timeout: float) -> None:
        """Return once the current version is not ``known``, or after ``timeout`` seconds."""
        if known != self.current:
            return
        try:
            await asyncio.wait_for(self._changed.wait(), timeout)
        except TimeoutError:
            pass
