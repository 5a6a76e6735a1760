"""The controller's signature on one node's part of a job or step (Slurm's job credential).

Every launch carries one, batch scripts as much as srun's tasks, as slurmd requires of
slurmctld: the controller signs what it decided (job, step, user, group, node, task ranks, the
allocated CPUs, memory and GPUs, and the digest of the script or command line) with an expiry,
and a node agent launches nothing whose credential does not verify for exactly that launch on
that node. A launch altered on the way, replayed against another node, given other resources or
another script, or sent long after it was made is refused with "Invalid job credential".
Stdlib only; the messages are read by attribute, so this module needs no protobuf import.
"""
from __future__ import annotations

import hashlib
import hmac
import time
from dataclasses import dataclass
from typing import Any

from .auth import purpose_key

VERSION = "c2"
TTL = 300          # seconds a job credential stays valid (launches are immediate)
BATCH_STEP = "batch"


class CredentialError(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Launch:
    """What one node is told to run, as far as the credential vouches for it."""
    job_id: int
    step: str                  # "batch", or the step id
    uid: int
    gid: int
    node: str
    ranks: tuple[int, ...]
    cpu_ids: tuple[int, ...]
    memory_mb: int
    gpu_indices: tuple[int, ...]
    payload_digest: str        # sha256 of the batch script, or of the step's command line

    def text(self, expires: int) -> str:
        def ids(values: tuple[int, ...]) -> str:
            return ",".join(map(str, values))
        return " ".join((VERSION, str(self.job_id), self.step, str(self.uid), str(self.gid), self.node,
                         ids(self.ranks), ids(self.cpu_ids), str(self.memory_mb), ids(self.gpu_indices),
                         self.payload_digest, str(expires)))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode(errors="surrogateescape")).hexdigest()


def batch_launch(message: Any, node: str) -> Launch:
    """The Launch of a slurmd BatchLaunch message on `node`."""
    return Launch(message.job_id, BATCH_STEP, message.uid, message.gid, node, (), tuple(message.cpu_ids),
                  message.memory_mb, tuple(message.gpu_indices), _digest(message.script))


def task_launch(message: Any, node: str) -> Launch:
    """The Launch of a slurmd TaskLaunch message on `node`."""
    return Launch(message.job_id, str(message.step_id), message.uid, message.gid, node, tuple(message.task_ids),
                  tuple(message.cpu_ids), message.memory_mb, tuple(message.gpu_indices),
                  _digest("\0".join(message.argv)))


def _mac(key: bytes, launch: Launch, expires: int) -> str:
    return hmac.new(purpose_key(key, "job credential"), launch.text(expires).encode(), hashlib.sha256).hexdigest()


def sign(key: bytes, launch: Launch, now: float | None = None) -> str:
    expires = int(time.time() if now is None else now) + TTL
    return f"{expires} {_mac(key, launch, expires)}"


def verify(key: bytes, credential: str, launch: Launch, now: float | None = None) -> None:
    expires_text, _, mac = credential.partition(" ")
    if not expires_text.isdigit() or not mac:
        raise CredentialError("Invalid job credential")
    if not hmac.compare_digest(_mac(key, launch, int(expires_text)).encode(), mac.encode(errors="replace")):
        raise CredentialError("Invalid job credential")
    if int(expires_text) < (time.time() if now is None else now):
        raise CredentialError("Job credential expired")
