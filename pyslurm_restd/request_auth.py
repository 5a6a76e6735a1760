"""Who an HTTP request speaks for (slurmrestd's rest_auth/jwt and rest_auth/local).

* auth/jwt: ``X-SLURM-USER-TOKEN`` (or ``Authorization: Bearer``) and optionally
  ``X-SLURM-USER-NAME``. pyslurmrestd cannot check the token (it has no key); it passes it to the
  local auth agent, which verifies it before anything reaches a daemon. The name read from the
  token here only fills ``meta.client``.
* local: a unix-socket peer whose uid is ours (or root, who then acts as us, as slurmrestd lets
  it); any other uid is refused, since we can only vouch for our own.
"""
from __future__ import annotations

import logging
import os
import socket
import struct
from dataclasses import dataclass

import jwt
from aiohttp import web

from pyslurm_common.users import user_name

from .upstream import Caller

log = logging.getLogger(__name__)
_UCRED = struct.Struct("3i")
MAX_TOKEN = 8192


@dataclass(frozen=True, slots=True)
class AuthModes:
    jwt: bool = True
    local: bool = True


def _peer_uid(request: web.Request) -> int | None:
    sock = request.transport.get_extra_info("socket") if request.transport else None
    if sock is None or sock.family != socket.AF_UNIX:
        return None
    _pid, uid, _gid = _UCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size))
    return uid


def token_claims(token: str) -> tuple[str, int]:
    """The user and expiry a token claims, unverified ("", 0 if unreadable): for display and the
    page cookie's lifetime only; the auth agent verifies every token it is given."""
    try:
        claims = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return "", 0
    user, expires = claims.get("sun"), claims.get("exp")
    if not isinstance(user, str) or not isinstance(expires, int):
        return "", 0
    return user, expires


def authenticate(request: web.Request, modes: AuthModes) -> Caller | None:
    """The caller, or None: "Authentication does not apply to request"."""
    token = request.headers.get("X-SLURM-USER-TOKEN", "")
    bearer = request.headers.get("Authorization", "")
    if not token and bearer.lower().startswith("bearer "):
        token = bearer[7:].strip()
    name = request.headers.get("X-SLURM-USER-NAME", "")
    if token and modes.jwt:
        if len(token) > MAX_TOKEN or len(name) > 256:
            return None
        return Caller(user_name=name or token_claims(token)[0], token=token)
    peer = _peer_uid(request) if modes.local else None
    if peer is None:
        return None
    if peer not in (0, os.getuid()):
        log.error("rejecting socket connection with uid:%d", peer)
        return None
    return Caller(user_name=user_name(os.getuid()))
