"""CLI side of the auth agent: one blocking RPC over the unix socket.

This is the hot path of every CLI call, so it imports only the stdlib and
the protobuf message classes the caller hands in; of the stdlib, `_socket`
(the C module under `socket`) and no pathlib: socket.py turns every constant
into an enum at import, which costs a CLI call more than the call itself.
"""
from __future__ import annotations

import _socket

from google.protobuf.message import Message

from ..errors import SlurmError
from . import protocol

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import TypeVar

    Reply = TypeVar("Reply", bound=Message)

# gRPC status numbers the CLIs distinguish.
UNAVAILABLE = 14
DEADLINE_EXCEEDED = 4
UNAUTHENTICATED = 16


class ConnectError(Exception):
    """The agent or the daemon behind it could not be reached."""


def call(socket_path: str, method: str, request: Message, reply_type: type[Reply],
         timeout: float = 30.0, failover_wait: float = 0.0) -> Reply:
    return start(socket_path, method, request, timeout, failover_wait).reply(reply_type)


class Call:
    """A request handed to the agent whose reply is not read yet: the caller works meanwhile."""

    def __init__(self, sock: _socket.socket) -> None:
        self._sock = sock

    def reply(self, reply_type: type[Reply]) -> Reply:
        try:
            status, details, body = protocol.decode_reply(protocol.recv_frame(self._sock))
        except (OSError, protocol.ProtocolError) as exc:
            raise ConnectError(f"lost the auth agent connection: {exc}") from exc
        finally:
            self._sock.close()
        if status in (UNAVAILABLE, DEADLINE_EXCEEDED):
            raise ConnectError(details)
        if status == UNAUTHENTICATED:
            raise SlurmError("Protocol authentication error", details)
        if status != 0:
            raise SlurmError.from_status_details(details)
        reply = reply_type()
        reply.ParseFromString(body)
        return reply


def start(socket_path: str, method: str, request: Message, timeout: float = 30.0,
          failover_wait: float = 0.0) -> Call:
    """Send one request; its `reply()` waits for the answer: `timeout` is the daemon's, to which
    the agent may add up to `failover_wait` seconds finding a controller in charge."""
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(timeout + failover_wait + 5)
    try:
        sock.connect(socket_path)
    except OSError as exc:
        sock.close()
        raise ConnectError(f"cannot reach the auth agent at {socket_path}: {exc.strerror}") from exc
    try:
        sock.sendall(protocol.encode_request(method, request.SerializeToString(), int(timeout * 1000)))
    except BrokenPipeError:
        pass     # the agent answered before taking it all (a request too long): its answer is read next
    except OSError as exc:
        sock.close()
        raise ConnectError(f"lost the auth agent connection: {exc}") from exc
    return Call(sock)
