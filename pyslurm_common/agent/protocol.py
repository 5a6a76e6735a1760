"""Framing between a CLI and the local auth agent (stdlib only).

Request frame:  u32 length | u16 method length | method (e.g. /pyslurm.Controller/GetJobs) | u32 timeout ms | body
Reply frame:    u32 length | u8 status (gRPC status code number, 0 = OK) | u32 details length | details | body
Bodies are serialized protobuf messages; the agent does not parse them.
Token request (pyslurmrestd): u32 length | u16 0xFFFF | u16 token length | u16 user length | token |
user | then a request frame's payload. The agent verifies the JWT (jwt_tokens.token_identity) and
signs for the token's user (or the named user, for a root/SlurmUser token) instead of the caller.
A controller method goes to whichever controller is in charge; ``/pyslurm.Controller@<i>/<Method>``
goes to the i-th SlurmctldHost only (0 = primary), for scontrol ping and takeover.
"""
from __future__ import annotations

import struct

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from _socket import socket

_LEN = struct.Struct("!I")
_REQ_HEAD = struct.Struct("!H")
_TIMEOUT = struct.Struct("!I")
_REPLY_HEAD = struct.Struct("!BI")
MAX_FRAME = 256 * 1024 * 1024     # a reply (e.g. a long job list) may be large
# What one request may make the agent hold: the largest batch script Slurm takes by default
# (max_script_size, 4 MB) with its environment and options, with room to spare.
MAX_REQUEST = 16 * 1024 * 1024

# Routable services: the agent forwards nothing else.
CONTROLLER_PREFIX = "/pyslurm.Controller/"
ACCOUNTING_PREFIX = "/pyslurm.Accounting/"


TOKEN_KIND = 0xFFFF                 # where a method length would be: no method name is that long
_TOKEN_HEAD = struct.Struct("!HHH")


class ProtocolError(Exception):
    pass


class TooLarge(ProtocolError):
    """A request longer than the agent takes: answered (TOO_LARGE_REPLY) without its body being read."""


# The answer to a request over MAX_REQUEST: in practice a batch script over slurmctld's own limit
# (max_script_size), which slurmctld refuses with this error (Slurm 22.05's sbatch of a 20 MB script:
# "Batch job submission failed: Pathname of a file, directory or other parameter too long").
TOO_LARGE_STATUS = 3     # INVALID_ARGUMENT
TOO_LARGE_DETAILS = "Pathname of a file, directory or other parameter too long"


def to_controller(index: int, method: str) -> str:
    """The method name that reaches the `index`-th SlurmctldHost only."""
    return f"/pyslurm.Controller@{index}/{method}"


def controller_target(method: str) -> tuple[str, int | None]:
    """(plain method name, SlurmctldHost index or None) of a requested method name."""
    service, sep, name = method.lstrip("/").partition("/")
    base, at, index = service.partition("@")
    if not (sep and at and base == "pyslurm.Controller" and index.isdigit()):
        return method, None
    return f"/{base}/{name}", int(index)


def encode_request(method: str, body: bytes, timeout_ms: int) -> bytes:
    m = method.encode()
    payload = _REQ_HEAD.pack(len(m)) + m + _TIMEOUT.pack(timeout_ms) + body
    return _LEN.pack(len(payload)) + payload


def decode_request(payload: bytes) -> tuple[str, int, bytes]:
    try:
        (mlen,) = _REQ_HEAD.unpack_from(payload)
        start = _REQ_HEAD.size
        method = payload[start:start + mlen].decode()
        (timeout_ms,) = _TIMEOUT.unpack_from(payload, start + mlen)
    except (struct.error, UnicodeDecodeError) as exc:
        raise ProtocolError(f"malformed request ({len(payload)} bytes)") from exc
    return method, timeout_ms, payload[start + mlen + _TIMEOUT.size:]


def encode_token_request(token: str, user: str, method: str, body: bytes, timeout_ms: int) -> bytes:
    t, u = token.encode(), user.encode()
    inner = encode_request(method, body, timeout_ms)[_LEN.size:]
    payload = _TOKEN_HEAD.pack(TOKEN_KIND, len(t), len(u)) + t + u + inner
    return _LEN.pack(len(payload)) + payload


def split_token(payload: bytes) -> tuple[tuple[str, str] | None, bytes]:
    """(token, user) of a token request and the request payload after them; (None, payload) for a
    plain request."""
    try:
        (kind,) = _REQ_HEAD.unpack_from(payload)
        if kind != TOKEN_KIND:
            return None, payload
        _, token_len, user_len = _TOKEN_HEAD.unpack_from(payload)
    except struct.error as exc:
        raise ProtocolError(f"malformed request ({len(payload)} bytes)") from exc
    start = _TOKEN_HEAD.size
    token = payload[start:start + token_len].decode(errors="replace")
    user = payload[start + token_len:start + token_len + user_len].decode(errors="replace")
    return (token, user), payload[start + token_len + user_len:]


def encode_reply(status: int, details: str, body: bytes) -> bytes:
    d = details.encode()
    payload = _REPLY_HEAD.pack(status, len(d)) + d + body
    return _LEN.pack(len(payload)) + payload


def decode_reply(payload: bytes) -> tuple[int, str, bytes]:
    status, dlen = _REPLY_HEAD.unpack_from(payload)
    start = _REPLY_HEAD.size
    return status, payload[start:start + dlen].decode(errors="replace"), payload[start + dlen:]


def recv_frame(sock: socket) -> bytes:
    head = _recv_exact(sock, _LEN.size)
    (length,) = _LEN.unpack(head)
    if length > MAX_FRAME:
        raise ProtocolError("frame too large")
    return _recv_exact(sock, length)


def _recv_exact(sock: socket, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise ProtocolError("connection closed")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def frame_length(head: bytes, limit: int = MAX_FRAME) -> int:
    (length,) = _LEN.unpack(head)
    if length > limit:
        raise TooLarge(f"frame too large ({length} bytes, at most {limit})")
    return length


LENGTH_SIZE = _LEN.size
