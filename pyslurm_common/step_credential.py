"""The controller's signature on one node's part of a job step (Slurm's job credential).

The controller signs what it decided: job, step, user, group, node and task ranks, with an
expiry; a node agent launches nothing whose credential does not verify for exactly that
launch, on that node. A request that was altered on the way, replayed against another node
or sent long after it was made is refused. Stdlib only.
"""
from __future__ import annotations

import hashlib
import hmac
import time
from typing import Iterable

VERSION = "c1"
TTL = 300          # seconds a step credential stays valid (launches are immediate)


class CredentialError(Exception):
    pass


def _payload(job_id: int, step_id: int, uid: int, gid: int, node: str, ranks: Iterable[int], expires: int) -> str:
    return " ".join((VERSION, str(job_id), str(step_id), str(uid), str(gid), node,
                     ",".join(str(r) for r in ranks), str(expires)))


def sign(key: bytes, job_id: int, step_id: int, uid: int, gid: int, node: str, ranks: Iterable[int],
         now: float | None = None) -> str:
    expires = int(time.time() if now is None else now) + TTL
    payload = _payload(job_id, step_id, uid, gid, node, ranks, expires)
    return f"{expires} {hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()}"


def verify(key: bytes, credential: str, job_id: int, step_id: int, uid: int, gid: int, node: str,
           ranks: Iterable[int], now: float | None = None) -> None:
    expires_text, _, mac = credential.partition(" ")
    if not expires_text.isdigit() or not mac:
        raise CredentialError("Invalid job credential")
    payload = _payload(job_id, step_id, uid, gid, node, ranks, int(expires_text))
    expected = hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected.encode(), mac.encode(errors="replace")):
        raise CredentialError("Invalid job credential")
    if int(expires_text) < (time.time() if now is None else now):
        raise CredentialError("Job credential expired")
