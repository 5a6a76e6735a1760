"""NodeLinks turns a node agent's gRPC error into one NodeLinkError whose message is one line."""
from __future__ import annotations

import asyncio

import grpc
import pytest

from pyslurm_ctld.shell.node_link import NodeLinkError, NodeLinks


class _Signer:
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return ()


class _RefusingStub:
    async def Reconfigure(self, request: object, **_: object) -> None:
        raise grpc.aio.AioRpcError(grpc.StatusCode.INVALID_ARGUMENT, grpc.aio.Metadata(), grpc.aio.Metadata(),
                                   "cgroup.conf:4: bad value\nInvalid argument")


def test_a_refusal_with_slurm_details_reads_as_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    links = NodeLinks(_Signer())  # type: ignore[arg-type]
    monkeypatch.setattr(links, "_stub", lambda node, address: _RefusingStub())
    with pytest.raises(NodeLinkError) as info:
        asyncio.run(links.reconfigure("n1", "127.0.0.1:1"))
    assert str(info.value) == "Reconfigure on n1: INVALID_ARGUMENT: cgroup.conf:4: bad value: Invalid argument"
    assert (info.value.code, info.value.details) == ("INVALID_ARGUMENT", "cgroup.conf:4: bad value\nInvalid argument")
