"""The controller's signature on a step launch (pyslurm_common/step_credential.py)."""
from __future__ import annotations

import pytest

from pyslurm_common import step_credential
from pyslurm_common.step_credential import CredentialError

KEY = b"k" * 64
LAUNCH = dict(job_id=12, step_id=0, uid=1000, gid=1000, node="node1", ranks=[0, 1])


def test_a_credential_verifies_for_exactly_its_launch() -> None:
    cred = step_credential.sign(KEY, now=1000, **LAUNCH)  # type: ignore[arg-type]
    step_credential.verify(KEY, cred, now=1100, **LAUNCH)  # type: ignore[arg-type]


@pytest.mark.parametrize("change", [dict(job_id=13), dict(step_id=1), dict(uid=0), dict(gid=0),
                                    dict(node="node2"), dict(ranks=[0, 1, 2])])
def test_any_other_launch_is_refused(change: dict[str, object]) -> None:
    cred = step_credential.sign(KEY, now=1000, **LAUNCH)  # type: ignore[arg-type]
    with pytest.raises(CredentialError, match="Invalid job credential"):
        step_credential.verify(KEY, cred, now=1100, **{**LAUNCH, **change})  # type: ignore[arg-type]


def test_a_foreign_key_an_expired_or_a_mangled_credential_is_refused() -> None:
    cred = step_credential.sign(KEY, now=1000, **LAUNCH)  # type: ignore[arg-type]
    with pytest.raises(CredentialError):
        step_credential.verify(b"x" * 64, cred, now=1100, **LAUNCH)  # type: ignore[arg-type]
    with pytest.raises(CredentialError, match="expired"):
        step_credential.verify(KEY, cred, now=1000 + step_credential.TTL + 1, **LAUNCH)  # type: ignore[arg-type]
    for bad in ("", "soon abc", cred.replace(" ", "  ")):
        with pytest.raises(CredentialError):
            step_credential.verify(KEY, bad, now=1100, **LAUNCH)  # type: ignore[arg-type]
