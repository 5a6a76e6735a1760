"""CLI side of the auth agent: one blocking RPC over the unix socket.

This is the hot path of every CLI call, so it imports only the stdlib and
the protobuf message classes the caller hands in; of the stdlib, `_socket`
(the C module under `socket`) and no pathlib: socket.py turns every constant
into an enum at import, which costs a CLI call more than the call itself.
"""
from __future__ import annotations

import _socket
from typing import TypeVar

from google.protobuf.message import Message

from ..errors import SlurmError
from . import protocol

Reply = TypeVar("Reply", bound=Message)

# gRPC status numbers the CLIs distinguish.
UNAVAILABLE = 14
DEADLINE_EXCEEDED = 4
UNAUTHENTICATED = 16


class ConnectError(Exception):
    """The agent or the daemon behind it could not be reached."""


def call(socket_path: str, method: str, request: Message, reply_type: type[Reply],
         timeout: float = 30.0) -> Reply:
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(timeout + 5)
    try:
        try:
            sock.connect(socket_path)
        except OSError as exc:
            raise ConnectError(f"cannot reach the auth agent at {socket_path}: {exc.strerror}") from exc
        sock.sendall(protocol.encode_request(method, request.SerializeToString(), int(timeout * 1000)))
        status, details, body = protocol.decode_reply(protocol.recv_frame(sock))
    except (OSError, protocol.ProtocolError) as exc:
        raise ConnectError(f"lost the auth agent connection: {exc}") from exc
    finally:
        sock.close()
    if status in (UNAVAILABLE, DEADLINE_EXCEEDED):
        raise ConnectError(details)
    if status == UNAUTHENTICATED:
        raise SlurmError("Protocol authentication error", details)
    if status != 0:
        raise SlurmError.from_status_details(details)
    reply = reply_type()
    reply.ParseFromString(body)
    return reply
