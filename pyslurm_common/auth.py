"""Per-RPC credentials bound to one request, and a server's proof that it holds the cluster key.

A credential is one printable line carried in the `x-pyslurm-cred` gRPC metadata entry:

    v2 <uid> <gid> <host> <issued> <expires> <nonce> <audience> <method> <body sha256> <hmac-sha256>

It is no bearer token: it names its audience (`<role>:<port>:<instance>`, one running daemon:
its role, its port and the random id it drew at start), the gRPC method and the digest of the
request body, so a credential captured anywhere (on the wire, or by a process squatting a daemon's
port while the daemon is down) is useless for any other daemon, method or request, and for the
same daemon once it restarted. Within the daemon's life each nonce is accepted once.

A client learns a daemon's audience from its Hello answer, whose proof is an HMAC over the
client's random challenge: only a holder of the cluster key can make it, so a squatter never
gets a credential at all (see rpc_client.py). Every answer carries a proof too, over the
credential's nonce and the reply's digest, so a client also notices when the connection it
had proven was taken over between two calls, and believes no reply a squatter makes up.

Only holders of the cluster key (root on cluster hosts: the daemons and the local auth agent,
which signs for its callers' kernel-verified uid) can make either. Each use has its own key
derived from the cluster key, so no signature of one kind can pass for another. Stdlib only.
"""
from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

CRED_METADATA_KEY = "x-pyslurm-cred"
VERSION = "v2"
DEFAULT_TTL = 60           # seconds a credential stays valid
CLOCK_SKEW = 30            # seconds of clock difference tolerated between hosts
KEY_BYTES = 32
FIELDS = 11

# Daemon roles, as Slurm names the daemons.
CONTROLLER = "slurmctld"
NODE_AGENT = "slurmd"
ACCOUNTING = "slurmdbd"

# The refusal a client answers with a new Hello: the daemon it knew has restarted.
OTHER_INSTANCE = "credential for another daemon instance"


class AuthError(Exception):
    """A credential was missing, malformed, forged, expired, replayed or meant for another request."""


@dataclass(frozen=True, slots=True)
class Identity:
    uid: int
    gid: int
    host: str

    @property
    def is_root(self) -> bool:
        return self.uid == 0


@dataclass(frozen=True, slots=True)
class Claim:
    """What a verified credential vouches for: who calls, and the digest of the body it may carry.
    It is spent (`Verifier.consume`) once the body was found to match."""
    identity: Identity
    body_digest: str
    nonce: str
    expires: int


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


@functools.lru_cache(maxsize=16)
def purpose_key(key: bytes, purpose: str) -> bytes:
    """The key for one use of the cluster key (credentials, server proofs, job credentials); derived
    once per key and use, not on every call and reply that is proven with it."""
    return hmac.new(key, f"pyslurm {purpose}".encode(), hashlib.sha256).digest()


def _mac(key: bytes, payload: str) -> str:
    return hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()


def credential_nonce(credential: str) -> str:
    """The nonce of a credential this process made (what a daemon's reply proof names)."""
    return credential.split(" ")[6]


def body_digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def audience(role: str, port: int, instance: str) -> str:
    return f"{role}:{port}:{instance}"


class CredentialSigner:
    """Makes credentials; the purpose key is derived once."""

    def __init__(self, key: bytes) -> None:
        self._key = purpose_key(key, "credential")

    def sign(self, identity: Identity, audience_: str, method: str, body: bytes, now: float | None = None,
             ttl: int = DEFAULT_TTL) -> str:
        issued = int(time.time() if now is None else now)
        for name, value in (("host name", identity.host), ("audience", audience_), ("method", method)):
            if not value or any(c.isspace() for c in value):
                raise ValueError(f"bad {name} for a credential: {value!r}")
        payload = " ".join((VERSION, str(identity.uid), str(identity.gid), identity.host, str(issued),
                            str(issued + ttl), secrets.token_hex(12), audience_, method, body_digest(body)))
        return f"{payload} {_mac(self._key, payload)}"


class Verifier:
    """Checks the credentials sent to one daemon instance and remembers nonces until they expire."""

    def __init__(self, key: bytes, audience_: str, clock: Callable[[], float] = time.time) -> None:
        self._key = purpose_key(key, "credential")
        self.audience = audience_
        self._clock = clock
        self._seen: dict[str, int] = {}
        self._next_purge = 0.0

    def verify(self, credential: str | None, method: str) -> Claim:
        """Everything but the body and the nonce: signature, expiry, audience and method."""
        if not credential:
            raise AuthError("no credential")
        fields = credential.split(" ")
        if len(fields) != FIELDS or fields[0] != VERSION:
            raise AuthError("malformed credential")
        payload, mac = " ".join(fields[:-1]), fields[-1]
        if not hmac.compare_digest(_mac(self._key, payload).encode(), mac.encode(errors="replace")):
            raise AuthError("invalid credential signature")
        try:
            uid, gid, issued, expires = int(fields[1]), int(fields[2]), int(fields[4]), int(fields[5])
        except ValueError as exc:
            raise AuthError("malformed credential") from exc
        now = self._clock()
        if issued > now + CLOCK_SKEW or expires + CLOCK_SKEW < now:
            raise AuthError("credential expired")
        if fields[7] != self.audience:
            raise AuthError(OTHER_INSTANCE)
        if fields[8] != method:
            raise AuthError("credential for another method")
        return Claim(Identity(uid=uid, gid=gid, host=fields[3]), fields[9], fields[6], expires)

    def consume(self, claim: Claim) -> None:
        """Accept the credential's nonce once: a second use is a replay."""
        self._purge(self._clock())
        if claim.nonce in self._seen:
            raise AuthError("credential replayed")
        self._seen[claim.nonce] = claim.expires + CLOCK_SKEW

    def _purge(self, now: float) -> None:
        if now < self._next_purge:
            return
        self._seen = {n: exp for n, exp in self._seen.items() if exp >= now}
        self._next_purge = now + 10


def hello_statement(challenge: bytes) -> str:
    """What a daemon proves in its Hello answer: it saw this caller's fresh challenge."""
    return f"hello {challenge.hex()}"


def reply_statement(nonce: str, reply: bytes) -> str:
    """What a daemon proves with each answer: this reply is to the credential with this nonce."""
    return f"reply {nonce} {body_digest(reply)}"


def prove(key: bytes, audience_: str, statement: str) -> str:
    """A daemon's signature on a statement, naming its own audience."""
    return _mac(purpose_key(key, "server proof"), f"{audience_} {statement}")


def proof_holds(key: bytes, audience_: str, statement: str, proof: str) -> bool:
    return hmac.compare_digest(prove(key, audience_, statement).encode(), proof.encode(errors="replace"))


def sign(key: bytes, identity: Identity, audience_: str, method: str, body: bytes, now: float | None = None,
         ttl: int = DEFAULT_TTL) -> str:
    """One credential (CredentialSigner keeps the derived key for many)."""
    return CredentialSigner(key).sign(identity, audience_, method, body, now, ttl)
