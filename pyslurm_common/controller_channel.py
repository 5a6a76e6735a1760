"""Reaching whichever controller is in charge when slurm.conf lists several (SlurmctldHost lines).

A `FailoverChannel` stands where a `grpc.aio.Channel` would (generated stubs take it), with
one signed channel per controller (rpc_client.py: each controller proves it holds the key). A call goes to the controller that answered last and, when that
one is unreachable or a backup standing by (both UNAVAILABLE: the request was not acted on),
to the others in slurm.conf order. Other failures are answers and are not retried elsewhere:
a timed-out request may have been acted on. Used by the node agents and the auth agent (so
every CLI); `channel(index)` reaches one controller only (scontrol ping, takeover).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import grpc

from .auth import CONTROLLER
from .rpc_auth import Signer, insecure_channel
from .rpc_client import signed_channel

if TYPE_CHECKING:
    from .config import SlurmConfig

NOT_IN_CHARGE = grpc.StatusCode.UNAVAILABLE

def attempt_order(count: int, preferred: int) -> list[int]:
    """Indices to try: the one that answered last, then the rest in slurm.conf order."""
    return [preferred, *(index for index in range(count) if index != preferred)]


class FailoverChannel:
    def __init__(self, addresses: Sequence[str],
                 make_channel: Callable[[str], Any]) -> None:
        if not addresses:
            raise ValueError("no controller address")
        self.addresses = tuple(addresses)
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
        refused: grpc.aio.AioRpcError | None = None
        for index in attempt_order(len(self._calls), self._owner.preferred):
            try:
                reply = await self._calls[index](request, **kwargs)
            except grpc.aio.AioRpcError as exc:
                if exc.code() != NOT_IN_CHARGE:
                    raise
                refused = refused or exc   # the first controller's reason is the one to report
                continue
            self._owner.preferred = index
            return reply
        assert refused is not None
        raise refused


def to_controllers(cfg: "SlurmConfig", signer: Signer) -> FailoverChannel:
    """A signed channel to every SlurmctldHost of `cfg`, in slurm.conf order."""
    return FailoverChannel([f"{host.addr}:{cfg.ctld_port}" for host in cfg.controllers],
                           lambda address: signed_channel(address, CONTROLLER, signer, insecure_channel))
