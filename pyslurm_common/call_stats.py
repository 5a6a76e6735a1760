"""What a daemon's server has answered since it started: calls in progress, and count and time
per method and per calling user (sdiag's "Remote Procedure Call statistics", sacctmgr show stats).

Soft state, like Slurm's: it starts again with the daemon. Kept by the authenticating
interceptor (`rpc_auth`), which alone knows the verified caller of every call.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(slots=True)
class CallTotal:
    count: int = 0
    total_usec: int = 0

    @property
    def average_usec(self) -> int:
        return self.total_usec // self.count if self.count else 0


@dataclass(slots=True)
class Serving:
    """How many calls a server is handling right now (sdiag's "Server thread count"), and what it
    has answered: keyed by method name (the last part of the gRPC path) and by caller uid."""
    count: int = 0
    since: int = field(default_factory=lambda: int(time.time()))
    by_method: dict[str, CallTotal] = field(default_factory=dict)
    by_uid: dict[int, CallTotal] = field(default_factory=dict)

    def answered(self, method: str, uid: int, usec: int) -> None:
        name = method.rsplit("/", 1)[-1]
        for table, key in ((self.by_method, name), (self.by_uid, uid)):
            total = table.get(key)
            if total is None:
                total = table[key] = CallTotal()
            total.count += 1
            total.total_usec += usec
