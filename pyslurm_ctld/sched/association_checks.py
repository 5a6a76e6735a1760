"""Which account and QOS a new job is charged to, as AccountingStorageEnforce demands.

`charge` is the submission check (sbatch, srun, salloc, and `scontrol update` of account or
QOS): with ``associations`` enforced a job needs an association for its user, account (the
user's DefaultAccount when none is named) and each partition it may run in, else Slurm's
`Invalid account or account/partition combination specified`; its QOS defaults to the
association's DefaultQOS (else ``normal``), and with ``qos`` enforced it must be a QOS the
association may use, else `Invalid qos specification`. Without enforcement the same defaults
apply where the user has an association (Slurm looks it up all the same), and nothing is refused.

A partition's AllowAccounts/DenyAccounts and AllowQos/DenyQos are checked at submission too,
whatever the enforcement, against the account and QOS the job ends up with (Slurm's same two
refusals).

`standing` answers the same question for a pending job at every scheduling pass, against the
snapshot of that moment (a sacctmgr delete may have removed the association since): the
reason it must wait (InvalidAccount, InvalidQOS) or None.

`orphaned` names the jobs a sacctmgr delete took the association from (it was in the previous
snapshot, it is not in the new one): Slurm cancels them. Jobs that never had an association
(enforcement switched on later) are left to pend with InvalidAccount.

Pure: reads an `AssociationSnapshot`; raises `SlurmError`.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pyslurm_common.conf_records import PartitionConfig
from pyslurm_common.errors import SlurmError, Strerror

from ..model.associations import Association, AssociationSnapshot
from ..model.job import Job, Reason


@dataclass(frozen=True, slots=True)
class Charge:
    account: str
    qos: str
    association: Association | None     # None when associations are not enforced


def charge(snapshot: AssociationSnapshot, enforce: frozenset[str], user: str, account: str, qos: str,
           partitions: Sequence[PartitionConfig]) -> Charge:
    """The account and QOS of a job of ``user`` asking for ``account``/``qos`` ("" not given)
    in ``partitions`` (each must be allowed); raises SlurmError when enforcement or a
    partition refuses."""
    charged = _charge(snapshot, enforce, user, account, qos, [p.name for p in partitions])
    for part in partitions:
        if not _allowed(charged.account, part.allow_accounts, part.deny_accounts):
            raise SlurmError(Strerror.INVALID_ACCOUNT)
        if not _allowed(charged.qos, part.allow_qos, part.deny_qos):
            raise SlurmError(Strerror.INVALID_QOS)
    return charged


def _allowed(name: str, allow: tuple[str, ...] | None, deny: tuple[str, ...]) -> bool:
    return name in allow if allow is not None else name not in deny


def _charge(snapshot: AssociationSnapshot, enforce: frozenset[str], user: str, account: str, qos: str,
            partitions: Sequence[str]) -> Charge:
    if "associations" not in enforce:
        return _unenforced_charge(snapshot, user, account, qos, partitions[0] if partitions else "")
    account = (account or snapshot.default_account(user)).lower()
    found = [snapshot.user_association(user, account, p) for p in partitions] if account else [None]
    first = found[0]
    if first is None or any(a is None for a in found):
        raise SlurmError(Strerror.INVALID_ACCOUNT)
    qos = qos.lower() or snapshot.default_qos(first)
    if "qos" in enforce and not all(_may_use(snapshot, a, qos) for a in found if a is not None):
        raise SlurmError(Strerror.INVALID_QOS)
    return Charge(account, qos, first)


def _unenforced_charge(snapshot: AssociationSnapshot, user: str, account: str, qos: str, partition: str) -> Charge:
    """Slurm without enforcement still looks the user up: an account without an association
    gives way to the user's DefaultAccount, and the QOS defaults as the association says. A
    user accounting does not know keeps what the job asked for."""
    assoc = snapshot.user_association(user, account.lower(), partition) if account else None
    if assoc is None:
        default = snapshot.default_account(user)
        assoc = snapshot.user_association(user, default, partition) if default else None
        account = default if assoc is not None else account
    return Charge(account.lower() if assoc is not None else account,
                  qos.lower() or (snapshot.default_qos(assoc) if assoc is not None else ""), None)


def _may_use(snapshot: AssociationSnapshot, assoc: Association, qos: str) -> bool:
    return qos in snapshot.qos and qos in assoc.qos


def standing(snapshot: AssociationSnapshot, enforce: frozenset[str], user: str, account: str, qos: str,
             partition: str) -> tuple[Association | None, Reason | None]:
    """The association a pending job runs under in ``partition`` now, and why it may not start
    there (its association or QOS is gone), or None."""
    if "associations" not in enforce:
        return None, None
    assoc = snapshot.user_association(user, account, partition)
    if assoc is None:
        return None, Reason.INVALID_ACCOUNT
    if "qos" in enforce and not _may_use(snapshot, assoc, qos):
        return assoc, Reason.INVALID_QOS
    return assoc, None


def orphaned(before: AssociationSnapshot, after: AssociationSnapshot, enforce: frozenset[str],
             jobs: Iterable[Job]) -> list[Job]:
    """Pending and running jobs whose association ``before`` had and ``after`` has not."""
    if "associations" not in enforce or not before.version:
        return []
    return [job for job in jobs if not job.state.is_finished
            and before.user_association(job.user_name, job.request.account, job.request.partition) is not None
            and after.user_association(job.user_name, job.request.account, job.request.partition) is None]
