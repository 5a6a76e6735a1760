"""Per-RPC credentials: who is calling, signed with the cluster key.

A credential is one printable line carried in the `x-pyslurm-cred` gRPC
metadata entry:

    v1 <uid> <gid> <host> <issued> <expires> <nonce> <hmac-sha256 hex>

Only holders of the cluster key (root on cluster hosts: the daemons and the
local auth agent, which signs for its callers' kernel-verified uid) can make
one. Verifiers refuse bad signatures, expired or future-dated credentials and
replays (each nonce is accepted once while it is valid). Stdlib only.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

CRED_METADATA_KEY = "x-pyslurm-cred"
VERSION = "v1"
DEFAULT_TTL = 60           # seconds a credential stays valid
CLOCK_SKEW = 30            # seconds of clock difference tolerated between hosts
KEY_BYTES = 32


class AuthError(Exception):
    """A credential was missing, malformed, forged, expired or replayed."""


@dataclass(frozen=True, slots=True)
class Identity:
    uid: int
    gid: int
    host: str

    @property
    def is_root(self) -> bool:
        return self.uid == 0


def generate_key(path: Path) -> None:
    """Write a new random cluster key readable by root only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(KEY_BYTES) + "\n")


def load_key(path: Path) -> bytes:
    try:
        text = path.read_text().strip()
    except OSError as exc:
        raise AuthError(f"cannot read cluster key {path}: {exc.strerror}") from exc
    if len(text) < 32:
        raise AuthError(f"cluster key {path} is too short")
    return text.encode()


def _mac(key: bytes, payload: str) -> str:
    return hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()


def sign(key: bytes, identity: Identity, now: float | None = None, ttl: int = DEFAULT_TTL) -> str:
    issued = int(time.time() if now is None else now)
    if not identity.host or any(c.isspace() for c in identity.host):
        raise ValueError(f"bad host name for a credential: {identity.host!r}")
    payload = " ".join(
        (VERSION, str(identity.uid), str(identity.gid), identity.host, str(issued),
         str(issued + ttl), secrets.token_hex(12))
    )
    return f"{payload} {_mac(key, payload)}"


class Verifier:
    """Checks credentials and remembers nonces until they expire."""

    def __init__(self, key: bytes, clock: Callable[[], float] = time.time) -> None:
        self._key = key
        self._clock = clock
        self._seen: dict[str, int] = {}
        self._next_purge = 0.0

    def verify(self, credential: str | None) -> Identity:
        if not credential:
            raise AuthError("no credential")
        fields = credential.split(" ")
        if len(fields) != 8 or fields[0] != VERSION:
            raise AuthError("malformed credential")
        payload, mac = " ".join(fields[:7]), fields[7]
        if not hmac.compare_digest(_mac(self._key, payload).encode(), mac.encode(errors="replace")):
            raise AuthError("invalid credential signature")
        try:
            uid, gid, issued, expires = int(fields[1]), int(fields[2]), int(fields[4]), int(fields[5])
        except ValueError as exc:
            raise AuthError("malformed credential") from exc
        now = self._clock()
        if issued > now + CLOCK_SKEW or expires + CLOCK_SKEW < now:
            raise AuthError("credential expired")
        nonce = fields[6]
        self._purge(now)
        if nonce in self._seen:
            raise AuthError("credential replayed")
        self._seen[nonce] = expires + CLOCK_SKEW
        return Identity(uid=uid, gid=gid, host=fields[3])

    def _purge(self, now: float) -> None:
        if now < self._next_purge:
            return
        self._seen = {n: exp for n, exp in self._seen.items() if exp >= now}
        self._next_purge = now + 10
