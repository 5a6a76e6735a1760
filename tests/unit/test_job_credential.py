"""The controller's signature on a batch or step launch (pyslurm_common/job_credential.py)."""
from __future__ import annotations

import dataclasses

import pytest

from pyslurm_common import job_credential
from pyslurm_common.job_credential import CredentialError, Launch
from pyslurm_common.rpc import slurmd_pb2

KEY = b"k" * 64
LAUNCH = Launch(job_id=12, step="0", uid=1000, gid=1000, node="node1", ranks=(0, 1), cpu_ids=(2, 3),
                memory_mb=512, gpu_indices=(1,), payload_digest="ab" * 32)


def test_a_credential_verifies_for_exactly_its_launch() -> None:
    cred = job_credential.sign(KEY, LAUNCH, now=1000)
    job_credential.verify(KEY, cred, LAUNCH, now=1100)


@pytest.mark.parametrize("change", [dict(job_id=13), dict(step="1"), dict(step="batch"), dict(uid=0), dict(gid=0),
                                    dict(node="node2"), dict(ranks=(0, 1, 2)), dict(cpu_ids=(0, 1, 2, 3)),
                                    dict(memory_mb=0), dict(gpu_indices=(0, 1)), dict(payload_digest="cd" * 32)])
def test_any_other_launch_is_refused(change: dict[str, object]) -> None:
    cred = job_credential.sign(KEY, LAUNCH, now=1000)
    with pytest.raises(CredentialError, match="Invalid job credential"):
        job_credential.verify(KEY, cred, dataclasses.replace(LAUNCH, **change), now=1100)  # type: ignore[arg-type]


def test_a_foreign_key_an_expired_or_a_mangled_credential_is_refused() -> None:
    cred = job_credential.sign(KEY, LAUNCH, now=1000)
    with pytest.raises(CredentialError, match="Invalid job credential"):
        job_credential.verify(b"x" * 64, cred, LAUNCH, now=1100)
    with pytest.raises(CredentialError, match="Job credential expired"):
        job_credential.verify(KEY, cred, LAUNCH, now=1000 + job_credential.TTL + 1)
    for bad in ("", "soon abc", cred.replace(" ", "  "), cred[:-1]):
        with pytest.raises(CredentialError, match="Invalid job credential"):
            job_credential.verify(KEY, bad, LAUNCH, now=1100)


def test_a_batch_launch_is_bound_to_its_script_and_resources() -> None:
    message = slurmd_pb2.BatchLaunch(job_id=7, uid=1000, gid=1000, script="#!/bin/sh\ntrue\n", cpu_ids=[0, 1],
                                     memory_mb=100, gpu_indices=[0])
    cred = job_credential.sign(KEY, job_credential.batch_launch(message, "node1"))
    job_credential.verify(KEY, cred, job_credential.batch_launch(message, "node1"))
    altered = slurmd_pb2.BatchLaunch()
    altered.CopyFrom(message)
    altered.script = "#!/bin/sh\ncat /etc/pyslurm/slurm.key\n"
    with pytest.raises(CredentialError):
        job_credential.verify(KEY, cred, job_credential.batch_launch(altered, "node1"))
    with pytest.raises(CredentialError):
        job_credential.verify(KEY, cred, job_credential.batch_launch(message, "node2"))


def test_a_task_launch_is_bound_to_its_command_line() -> None:
    message = slurmd_pb2.TaskLaunch(job_id=7, step_id=2, uid=1000, gid=1000, argv=["hostname"], task_ids=[0])
    cred = job_credential.sign(KEY, job_credential.task_launch(message, "node1"))
    job_credential.verify(KEY, cred, job_credential.task_launch(message, "node1"))
    message.argv[:] = ["sh", "-c", "id"]
    with pytest.raises(CredentialError):
        job_credential.verify(KEY, cred, job_credential.task_launch(message, "node1"))
