"""Reaching whichever controller is in charge when slurm.conf lists several (SlurmctldHost lines).

A `FailoverChannel` stands where a `grpc.aio.Channel` would (generated stubs take it), with
one signed channel per controller (rpc_client.py: each controller proves it holds the key). A call goes to the controller that answered last and, when that
one is unreachable or a backup standing by (the request was not acted on: rpc_client.NotDelivered,
STANDBY_DETAIL), to the others in slurm.conf order. Other failures are answers and are not retried
elsewhere: a timed-out request, or a connection lost once the request went out, may have been
acted on. Used by the node agents and the auth agent (so every CLI); `channel(index)` reaches one
controller only (scontrol ping, takeover).

With `Patience` (the auth agent's), a call that found no controller in charge tries them all
again a second later, as Slurm's client API does through a failover (slurm_protocol_api.c in
22.05): MessageTimeout rounds of connection attempts while none can be reached, counted afresh
after each answer from one standing by (a backup not yet in charge); answers from one standing
by are retried until 1.5 x SlurmctldTimeout after the first try. So a call made while a backup
waits out SlurmctldTimeout, or just after `scontrol takeover` while the backup starts serving,
waits and succeeds. Slurm prints nothing while it retries (only its NET debug flag logs the
attempts), and neither do we.
"""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Sequence

import grpc

from .auth import CONTROLLER
from .rpc_auth import Signer, insecure_channel
from .rpc_client import NotDelivered, signed_channel

if TYPE_CHECKING:
    from .config import SlurmConfig

NOT_IN_CHARGE = grpc.StatusCode.UNAVAILABLE
STANDBY_DETAIL = "slurmctld is in standby mode (backup controller)"   # a controller not in charge
RETRY_INTERVAL = 1.0    # Slurm's client sleeps one second between rounds of connection attempts


def standing_by(exc: grpc.aio.AioRpcError) -> bool:
    return exc.code() == NOT_IN_CHARGE and exc.details() == STANDBY_DETAIL


def not_acted_on(exc: grpc.aio.AioRpcError) -> bool:
    """Whether the request may go to another controller: none that could act on it got it."""
    return isinstance(exc, NotDelivered) or standing_by(exc)


@dataclass(frozen=True, slots=True)
class Patience:
    """How long a call waits for a controller in charge (the module docstring says the rule)."""

    message_timeout: int = 10
    slurmctld_timeout: int = 120
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    clock: Callable[[], float] = time.monotonic

    def goes_on(self, unreachable_rounds: int, waited: float, standby_seen: bool) -> bool:
        """Whether to try again after a round that found no controller in charge: `standby_seen`
        whether one answered that it stands by, `unreachable_rounds` how many rounds in a row none
        answered at all, `waited` seconds since the first try."""
        if standby_seen:
            return waited + RETRY_INTERVAL < 1.5 * self.slurmctld_timeout
        return unreachable_rounds < self.message_timeout


NO_PATIENCE = Patience(message_timeout=1, slurmctld_timeout=0)   # one round: the node agents retry themselves

def attempt_order(count: int, preferred: int) -> list[int]:
    """Indices to try: the one that answered last, then the rest in slurm.conf order."""
    return [preferred, *(index for index in range(count) if index != preferred)]


class FailoverChannel:
    def __init__(self, addresses: Sequence[str],
                 make_channel: Callable[[str], Any], patience: Patience = NO_PATIENCE) -> None:
        if not addresses:
            raise ValueError("no controller address")
        self.addresses = tuple(addresses)
        self.patience = patience
        self._channels = [make_channel(address) for address in self.addresses]
        self.preferred = 0

    def channel(self, index: int) -> Any:
        return self._channels[index]

    def unary_unary(self, method: str, request_serializer: Callable[[Any], bytes] | None = None,
                    response_deserializer: Callable[[bytes], Any] | None = None,
                    _registered_method: bool = False) -> "_FailoverCall":
        return _FailoverCall(self, [channel.unary_unary(method, request_serializer, response_deserializer)
                                    for channel in self._channels])

    async def close(self) -> None:
        for channel in self._channels:
            await channel.close()


class _FailoverCall:
    """One method on every controller; awaiting a call tries them in `attempt_order`."""

    def __init__(self, owner: FailoverChannel, calls: list[Any]) -> None:
        self._owner = owner
        self._calls = calls

    async def __call__(self, request: Any, **kwargs: Any) -> Any:
        patience = self._owner.patience
        started = patience.clock()
        unreachable_rounds = 0
        while True:
            refused: grpc.aio.AioRpcError | None = None
            standby_seen = False
            for index in attempt_order(len(self._calls), self._owner.preferred):
                try:
                    reply = await self._calls[index](request, **kwargs)
                except grpc.aio.AioRpcError as exc:
                    if not not_acted_on(exc):
                        raise
                    refused = refused or exc   # the first controller's reason is the one to report
                    standby_seen = standby_seen or standing_by(exc)
                    continue
                self._owner.preferred = index
                return reply
            unreachable_rounds = 0 if standby_seen else unreachable_rounds + 1
            assert refused is not None
            if not patience.goes_on(unreachable_rounds, patience.clock() - started, standby_seen):
                raise refused
            await patience.sleep(RETRY_INTERVAL)


def to_controllers(cfg: "SlurmConfig", signer: Signer, patient: bool = False) -> FailoverChannel:
    """A signed channel to every SlurmctldHost of `cfg`, in slurm.conf order; `patient`: calls wait
    through a failover as Slurm's commands do (the auth agent, so every CLI)."""
    patience = Patience(cfg.message_timeout, cfg.slurmctld_timeout) if patient else NO_PATIENCE
    return FailoverChannel([f"{host.addr}:{cfg.ctld_port}" for host in cfg.controllers],
                           lambda address: signed_channel(address, CONTROLLER, signer, insecure_channel), patience)
