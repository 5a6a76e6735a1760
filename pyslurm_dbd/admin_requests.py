"""What sacctmgr's requests and the daemon's answers are made of, shared by changes and reads."""

from __future__ import annotations

from dataclasses import dataclass, field

from pyslurm_common.errors import SlurmError, Strerror

NO_PRIVILEGE = "Your user doesn't have privilege to perform this action"


@dataclass(frozen=True, slots=True)
class Setting:
    """One ``Key=value`` as typed (``op`` is ``=``, ``+=`` or ``-=``)."""

    key: str
    value: str
    op: str = "="


@dataclass(frozen=True, slots=True)
class AssocKey:
    cluster: str
    account: str
    user: str = ""
    partition: str = ""


@dataclass(slots=True)
class ChangeReport:
    """What a change did; all empty when there was nothing to do."""

    names: list[str] = field(default_factory=list)
    settings: list[tuple[str, str]] = field(default_factory=list)
    limits: list[tuple[str, str]] = field(default_factory=list)
    associations: list[AssocKey] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Caller:
    name: str
    privileged: bool  # root or SlurmUser


def invalid(*lines: str) -> SlurmError:
    return SlurmError(Strerror.INVALID_ARGUMENT, "\n".join(lines))
