"""Calls to the controller and the accounting daemon on behalf of the HTTP caller, through the
local auth agent (pyslurmsackd).

pyslurmrestd holds no cluster key. A JWT caller's token goes to the agent with the call; the agent
verifies it and signs the credential for the token's user. A local (unix socket) caller is
pyslurmrestd's own user (rest_auth/local admits no one else), so the agent signs for our uid as
for any CLI. Either way the daemons apply the same rules as for the CLIs.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TypeVar

from google.protobuf.message import Message

from pyslurm_common.agent import protocol
from pyslurm_common.errors import SlurmError, Strerror

Reply = TypeVar("Reply", bound=Message)
CONTROLLER = "/pyslurm.Controller/"
ACCOUNTING = "/pyslurm.Accounting/"
_UNAVAILABLE, _DEADLINE, _UNAUTHENTICATED = 14, 4, 16


class UpstreamError(Exception):
    """A refusal (Slurm's strerror) or an unreachable daemon (COMM_FAILURE)."""

    def __init__(self, strerror: str, detail: str = "") -> None:
        super().__init__(strerror)
        self.strerror = strerror
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Caller:
    """Who the HTTP request speaks for: a token's user (``token`` set; ``user_name`` is the
    X-SLURM-USER-NAME asked for, else the name the token claims, for the agent to check) or our
    own user (local)."""

    user_name: str
    token: str | None = None


# Calls in flight to the agent at once: it serves one uid (all of pyslurmrestd's calls are ours)
# only so many connections at a time (agent.daemon.CONNECTIONS_PER_USER), and refuses the rest.
MAX_CALLS = 16


class Upstream:
    def __init__(self, agent_socket: str, timeout: float = 30.0) -> None:
        self._socket = agent_socket
        self._timeout = timeout
        self._slots = asyncio.Semaphore(MAX_CALLS)

    async def call(self, caller: Caller, method: str, request: Message, reply_type: type[Reply]) -> Reply:
        async with self._slots:
            return await self._call(caller, method, request, reply_type)

    async def _call(self, caller: Caller, method: str, request: Message, reply_type: type[Reply]) -> Reply:
        timeout_ms = int(self._timeout * 1000)
        body = request.SerializeToString()
        if caller.token is not None:
            frame = protocol.encode_token_request(caller.token, caller.user_name, method, body, timeout_ms)
        else:
            frame = protocol.encode_request(method, body, timeout_ms)
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(self._socket), self._timeout)
        except (OSError, asyncio.TimeoutError) as exc:
            raise UpstreamError(Strerror.COMM_FAILURE, f"cannot reach the auth agent: {exc}") from exc
        try:
            writer.write(frame)
            await writer.drain()
            head = await asyncio.wait_for(reader.readexactly(protocol.LENGTH_SIZE), self._timeout + 5)
            payload = await reader.readexactly(protocol.frame_length(head))
            status, details, reply_body = protocol.decode_reply(payload)
        except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError, protocol.ProtocolError) as exc:
            raise UpstreamError(Strerror.COMM_FAILURE, f"lost the auth agent connection: {exc}") from exc
        finally:
            writer.close()
        if status in (_UNAVAILABLE, _DEADLINE):
            raise UpstreamError(Strerror.COMM_FAILURE, details)
        if status == _UNAUTHENTICATED:
            raise UpstreamError(Strerror.AUTH_FAILURE, details)
        if status != 0:
            error = SlurmError.from_status_details(details)
            raise UpstreamError(error.strerror, error.detail)
        reply = reply_type()
        reply.ParseFromString(reply_body)
        return reply
