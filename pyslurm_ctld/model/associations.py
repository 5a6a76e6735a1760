"""The association and QOS definitions the controller enforces, as one immutable snapshot.

`AssociationSnapshot` is what the controller knows of accounting's associations (the tree of
one cluster: accounts, users, partitions, with shares and limits), QOS and users at one version.
`association_cache` keeps the current one (from the accounting daemon, or from its durable copy
while the daemon is down) and hands out a new object on every change; nothing here changes
after construction, so a scheduling pass, the priority and preemption code can hold one and
read it freely. Pure: no I/O.

Interface for readers:

* ``snapshot.associations``: every association, tree order (``root`` first, each account's
  users before its sub-accounts). ``Association.user`` is "" for an account's own association;
  ``parent_account`` is "" only for ``root``. ``shares`` is ``SHARES_PARENT`` for
  ``Fairshare=parent``.
* ``snapshot.account(name)``, ``snapshot.parent(assoc)``, ``snapshot.children(assoc)``,
  ``snapshot.lineage(assoc)`` (the association, then its accounts up to root): the tree.
* ``snapshot.user_association(user, account, partition)``: the association a job of ``user``
  charged to ``account`` in ``partition`` runs under (a partition-specific one first), or None.
* ``snapshot.default_account(user)``, ``snapshot.default_qos(assoc)``.
* ``snapshot.qos``: name -> `Qos` (priority, limits, flags, ``preempt`` names, ``preempt_mode``
  lower-case as sacctmgr stores it: ``cluster`` means "use the global PreemptMode", grace time).
* TRES counts (``Tres``) map canonical names (``cpu``, ``mem`` in MB, ``node``, ``gres/gpu``) to
  counts; a name missing from a limit is not limited. Wall limits are minutes; None means unset.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

SHARES_PARENT = 0x7FFFFFFF
"""``shares`` of an association whose fairshare is ``parent`` (Slurm's SLURMDB_FS_USE_PARENT)."""
DEFAULT_QOS = "normal"
ROOT = "root"

Tres = Mapping[str, int]
NO_TRES: Tres = MappingProxyType({})


def _no_limit() -> Tres:
    """Default of a TRES limit field (a dataclass field may not default to a shared mapping)."""
    return field(default_factory=lambda: NO_TRES)  # type: ignore[no-any-return]


def parse_tres(text: str) -> Tres:
    """Canonical ``cpu=4,mem=1024,gres/gpu=2`` (as accounting stores it) to a read-only mapping."""
    counts: dict[str, int] = {}
    for item in text.split(","):
        name, sep, amount = item.partition("=")
        if sep:
            counts[name.strip().lower()] = int(amount)
    return MappingProxyType(counts) if counts else NO_TRES


@dataclass(frozen=True, slots=True)
class AssociationLimits:
    """An association's own limits; None / a missing TRES name: not set at this level."""

    grp_jobs: int | None = None          # running jobs of the whole subtree
    grp_submit: int | None = None        # pending + running jobs of the subtree
    grp_tres: Tres = _no_limit()         # TRES held by the subtree's running jobs
    grp_wall: int | None = None          # minutes (decayed usage; not enforced yet)
    max_jobs: int | None = None          # running jobs of each user below (inherited down)
    max_submit: int | None = None        # pending + running jobs of each user below (inherited down)
    max_tres: Tres = _no_limit()         # per job (inherited down)
    max_tres_per_node: Tres = _no_limit()
    max_wall: int | None = None          # per job, minutes (inherited down)


@dataclass(frozen=True, slots=True)
class Association:
    id: int
    cluster: str
    account: str
    user: str                 # "" for the account's own association
    partition: str            # "" for every partition
    parent_account: str       # "" for root
    shares: int               # SHARES_PARENT: fairshare=parent
    priority: int | None
    limits: AssociationLimits
    qos: tuple[str, ...]      # the QOS its jobs may use
    default_qos: str          # "" none set

    @property
    def is_user(self) -> bool:
        return bool(self.user)


@dataclass(frozen=True, slots=True)
class QosLimits:
    grp_jobs: int | None = None
    grp_submit: int | None = None
    grp_tres: Tres = _no_limit()
    grp_wall: int | None = None
    max_tres_per_job: Tres = _no_limit()
    max_tres_per_node: Tres = _no_limit()
    max_tres_per_user: Tres = _no_limit()
    max_tres_per_account: Tres = _no_limit()
    max_wall: int | None = None          # per job, minutes
    max_jobs_per_user: int | None = None
    max_submit_per_user: int | None = None
    max_jobs_per_account: int | None = None
    max_submit_per_account: int | None = None
    min_tres_per_job: Tres = _no_limit()


@dataclass(frozen=True, slots=True)
class Qos:
    id: int
    name: str
    priority: int = 0
    flags: frozenset[str] = frozenset()   # as sacctmgr spells them: DenyOnLimit, NoReserve, ...
    grace_time: int = 0                   # seconds
    preempt: tuple[str, ...] = ()         # QOS this one may preempt (preempt/qos)
    preempt_mode: str = "cluster"         # cluster (the global one), off, cancel, requeue, suspend, ...
    preempt_exempt_time: int | None = None
    usage_factor: float = 1.0
    usage_threshold: float | None = None
    limits: QosLimits = QosLimits()

    @property
    def deny_on_limit(self) -> bool:
        return "DenyOnLimit" in self.flags


@dataclass(frozen=True, slots=True)
class AccountingUser:
    name: str
    default_account: str
    admin_level: str          # None, Operator, Administrator
    coord_accounts: frozenset[str] = frozenset()   # accounts it coordinates, sub-accounts included


@dataclass(frozen=True, slots=True)
class AssociationSnapshot:
    """Every definition at one version (``version`` "" for the empty snapshot)."""

    version: str
    associations: tuple[Association, ...] = ()
    qos: Mapping[str, Qos] = field(default_factory=dict)
    users: Mapping[str, AccountingUser] = field(default_factory=dict)
    _accounts: dict[str, Association] = field(init=False, repr=False, compare=False)
    _by_user: dict[tuple[str, str, str], Association] = field(init=False, repr=False, compare=False)
    _children: dict[str, tuple[Association, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Indexes derived once: the object is frozen, so they never go stale.
        accounts: dict[str, Association] = {}
        by_user: dict[tuple[str, str, str], Association] = {}
        children: dict[str, list[Association]] = {}
        for assoc in self.associations:
            if assoc.is_user:
                by_user[(assoc.user, assoc.account, assoc.partition)] = assoc
                children.setdefault(assoc.account, []).append(assoc)
            else:
                accounts[assoc.account] = assoc
                if assoc.parent_account:
                    children.setdefault(assoc.parent_account, []).append(assoc)
        object.__setattr__(self, "_accounts", accounts)
        object.__setattr__(self, "_by_user", by_user)
        object.__setattr__(self, "_children", {k: tuple(v) for k, v in children.items()})

    def account(self, name: str) -> Association | None:
        """The account's own association."""
        return self._accounts.get(name)

    def parent(self, assoc: Association) -> Association | None:
        """The account association above ``assoc`` (None for root)."""
        return self._accounts.get(assoc.account if assoc.is_user else assoc.parent_account)

    def children(self, assoc: Association) -> tuple[Association, ...]:
        """Users' associations, then sub-accounts, directly below an account association."""
        return () if assoc.is_user else self._children.get(assoc.account, ())

    def lineage(self, assoc: Association) -> list[Association]:
        """``assoc``, then each account association above it up to root."""
        chain = [assoc]
        seen = {assoc.account} if not assoc.is_user else set()
        parent = self.parent(assoc)
        while parent is not None and parent.account not in seen:   # a broken tree must not loop
            chain.append(parent)
            seen.add(parent.account)
            parent = self.parent(parent)
        return chain

    def user_association(self, user: str, account: str, partition: str) -> Association | None:
        """The association of ``user`` in ``account`` for ``partition``: a partition's own first."""
        return self._by_user.get((user, account, partition)) or self._by_user.get((user, account, ""))

    def default_account(self, user: str) -> str:
        """The user's DefaultAccount ("" for a user accounting does not know)."""
        known = self.users.get(user)
        return known.default_account if known is not None else ""

    def admin_level(self, user: str) -> str:
        known = self.users.get(user)
        return known.admin_level if known is not None else "None"

    def coord_accounts(self, user: str) -> frozenset[str]:
        """The accounts whose jobs ``user`` may cancel, hold, release and requeue as their coordinator."""
        known = self.users.get(user)
        return known.coord_accounts if known is not None else frozenset()

    def is_operator(self, user: str) -> bool:
        """AdminLevel Operator or Administrator: may change other users' jobs."""
        return self.admin_level(user) in ("Operator", "Administrator")

    @staticmethod
    def default_qos(assoc: Association) -> str:
        """The QOS of a job that names none: the association's DefaultQOS, else ``normal``
        (else the only QOS the association may use)."""
        if assoc.default_qos:
            return assoc.default_qos
        if DEFAULT_QOS in assoc.qos or len(assoc.qos) != 1:
            return DEFAULT_QOS
        return assoc.qos[0]


EMPTY = AssociationSnapshot(version="")
"""What the controller knows before it ever reached the accounting daemon (and has no copy)."""
