"""slurm.conf's records: ``NodeName=``, ``NodeSet=``, ``PartitionName=`` and ``DownNodes=`` lines,
parsed into one :class:`NodeConfig` per node, one :class:`NodeSetConfig` per node set and one
:class:`PartitionConfig` per partition, and the same lines given outside slurm.conf (a dynamic
node's definition, scontrol create/update partition).

This module owns which record keys exist and what they mean, and what records share with the
global lines :mod:`pyslurm_common.config` reads (the key tables' spelling, the warning for an
unknown key, ``DEFAULT`` records, optional memory values). ``NodeName=DEFAULT`` and
``PartitionName=DEFAULT`` set defaults for *later* records and accumulate.

Errors: an invalid value, a partition naming an unknown node, a duplicate node, or a NodeSet
named as a node raises
:class:`ConfigError` (``<file>:<line>: <message naming the key>``); unknown keys are warned.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pyslurm_common.bounds import UINT16_MAX, UINT32_MAX
from pyslurm_common.conf_syntax import ConfigError, Token, tokenize
from pyslurm_common.gres import GresError, parse_gres
from pyslurm_common.preempt_conf import ModeSpec, parse_grace_time, parse_mode
from pyslurm_common.units import UNLIMITED

if TYPE_CHECKING:
    from pyslurm_common.config import SlurmConfig

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeConfig:
    """One node as configured (a ``NodeName=`` hostlist yields one of these per name)."""

    name: str
    hostname: str
    address: str
    port: int | None  # None: use SlurmConfig.slurmd_port
    cpus: int
    sockets: int
    cores_per_socket: int
    threads_per_core: int
    real_memory_mb: int = 1
    tmp_disk_mb: int = 0
    gres: str = ""
    features: tuple[str, ...] = ()
    weight: int = 1
    state: str | None = None  # CLOUD, DOWN, DRAIN, FAIL, FAILING, FUTURE, UNKNOWN; None = UNKNOWN
    reason: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PartitionConfig:
    """One ``PartitionName=`` record, DEFAULT values and global memory defaults applied."""

    name: str
    nodes: tuple[str, ...]  # expanded, in config order; Nodes=ALL is every node
    node_expr: str  # Nodes= as written
    is_default: bool = False  # at most one partition has it
    state: str = "UP"  # UP, DOWN, DRAIN, INACTIVE
    max_time_min: int = UNLIMITED
    default_time_min: int | None = None  # None: jobs get max_time_min
    max_nodes: int | None = None  # None: unlimited
    min_nodes: int = 0
    priority_tier: int = 1
    priority_job_factor: int = 1
    over_subscribe: str = "NO"  # NO, EXCLUSIVE, YES:<n>, FORCE:<n>
    def_mem_per_cpu_mb: int | None = None  # the partition's, else the global DefMemPerCPU
    max_mem_per_node_mb: int | None = None  # the partition's, else the global MaxMemPerNode
    preempt_mode: ModeSpec | None = None  # None: the global PreemptMode
    grace_time: int = 0  # seconds a preempted job gets between SIGTERM and the preemption
    # Who may submit (lower-cased names): None is ALL; a deny list counts only without an allow list.
    allow_accounts: tuple[str, ...] | None = None
    deny_accounts: tuple[str, ...] = ()
    allow_qos: tuple[str, ...] | None = None
    deny_qos: tuple[str, ...] = ()
    qos: str = ""                 # the partition QOS, whose limits bind every job here ("" none)
    hidden: bool = False          # Hidden=YES: left out of squeue/sinfo for users, unless -a/--all
    # Which nodes created later (dynamic ones) join: every node (Nodes=ALL, or a NodeSet of
    # Nodes=ALL), or those with one of these features (its NodeSets' Feature=), as in Slurm.
    takes_all: bool = False
    node_features: tuple[str, ...] = ()

    def takes(self, node: NodeConfig) -> bool:
        """Whether `node`, created after the partition, is one of its nodes."""
        return self.takes_all or any(f in self.node_features for f in node.features)


@dataclass(frozen=True, slots=True)
class NodeSetConfig:
    """One ``NodeSet=<name> [Feature=<f>] [Nodes=<list>]`` record: a name a partition's Nodes=
    may use for the union of the nodes listed and the nodes that have the feature."""

    name: str
    nodes: tuple[str, ...]   # Nodes= expanded, and the configured nodes with the feature
    feature: str | None
    takes_all: bool          # Nodes=ALL


# --------------------------------------------------------------------------------------------
# key tables: canonical spellings (lookups are by lower case)

_NODE_WORDS = """
NodeName NodeHostname NodeAddr CPUs Procs Boards SocketsPerBoard Sockets CoresPerSocket
ThreadsPerCore RealMemory TmpDisk Gres Features Feature Weight State Port Reason
"""
_NODE_WORDS_IGNORED = "BcastAddr CoreSpecCount CpuBind CpuSpecList MemSpecLimit TRESWeights"
_PARTITION_WORDS = """
PartitionName Nodes Default MaxTime DefaultTime MaxNodes MinNodes State PriorityTier
PriorityJobFactor Priority OverSubscribe Shared DefMemPerCPU MaxMemPerNode PreemptMode GraceTime
AllowAccounts DenyAccounts AllowQos DenyQos QOS Hidden
"""
_PARTITION_WORDS_IGNORED = """
AllocNodes AllowGroups Alternate CpuBind DefCpuPerGPU DefMemPerGPU
DefMemPerNode DisableRootJobs ExclusiveUser LLN
MaxCPUsPerNode MaxCPUsPerSocket MaxMemPerCPU OverTimeLimit PowerDownOnIdle
ReqResv ResumeTimeout RootOnly SelectTypeParameters SuspendTime SuspendTimeout
TRESBillingWeights
"""
_DOWN_WORDS = "DownNodes State Reason"
_NODESET_WORDS = "NodeSet Feature Nodes"


def key_table(words: str) -> dict[str, str]:
    return {w.lower(): w for w in words.split()}


NODE_KEYS, NODE_KEYS_IGNORED = key_table(_NODE_WORDS), key_table(_NODE_WORDS_IGNORED)
PARTITION_KEYS, PARTITION_KEYS_IGNORED = key_table(_PARTITION_WORDS), key_table(_PARTITION_WORDS_IGNORED)
DOWN_KEYS = key_table(_DOWN_WORDS)
NODESET_KEYS = key_table(_NODESET_WORDS)

_NODE_STATES = frozenset({"CLOUD", "DOWN", "DRAIN", "FAIL", "FAILING", "FUTURE", "UNKNOWN"})
_PARTITION_STATES = frozenset({"UP", "DOWN", "DRAIN", "INACTIVE"})

Record = dict[str, Token]  # lower-case key → token; the record's own name key included


def warn_keys(tokens: Iterable[Token], known: Mapping[str, str],
              ignored: Mapping[str, str], what: str) -> None:
    for tok in tokens:
        if tok.lower in ignored:
            _log.warning("%s: %s is not supported by pyslurm and is ignored (%s)", tok.where, tok.key, what)
        elif tok.lower not in known:
            _log.warning("%s", tok.unrecognized())


def add_record(tokens: list[Token], defaults: Record, records: list[Record]) -> None:
    """A ``DEFAULT`` line updates the defaults for later lines; any other line snapshots them."""
    own = {t.lower: t for t in tokens}
    if tokens[0].value.upper() == "DEFAULT":
        del own[tokens[0].lower]
        defaults.update(own)
    else:
        records.append({**defaults, **own})


def optional_memory(tok: Token | None) -> int | None:
    """DefMem*/MaxMem*: absent, 0 and UNLIMITED all mean "no value"."""
    if tok is None or tok.value.upper() in ("UNLIMITED", "INFINITE"):
        return None
    return tok.as_memory_mb() or None


# --------------------------------------------------------------------------------------------
# NodeName / DownNodes


def build_nodes(records: list[Record]) -> tuple[NodeConfig, ...]:
    nodes: list[NodeConfig] = []
    first_seen: dict[str, str] = {}
    for rec in records:
        name_tok = rec["nodename"]
        names = name_tok.as_hostlist()
        hostnames = _parallel(rec["nodehostname"], names) if "nodehostname" in rec else names
        addresses = _parallel(rec["nodeaddr"], names) if "nodeaddr" in rec else hostnames
        ports = _ports(rec.get("port"), names)
        shape = _node_shape(rec)
        for i, name in enumerate(names):
            if name.upper() == "ALL":
                raise name_tok.error("NodeName ALL is reserved")
            if name in first_seen:
                raise name_tok.error(f"duplicate NodeName {name!r} (first defined at {first_seen[name]})")
            first_seen[name] = name_tok.where
            nodes.append(dataclasses.replace(shape, name=name, hostname=hostnames[i],
                                             address=addresses[i], port=ports[i]))
    return tuple(nodes)


def _parallel(tok: Token, names: list[str]) -> list[str]:
    """NodeHostname/NodeAddr/Port: one value per name, or a single value shared by all."""
    values = tok.as_hostlist()
    if len(values) == 1:
        return values * len(names)
    if len(values) != len(names):
        raise tok.error(f"{tok.key} has {len(values)} values but NodeName has {len(names)} names")
    return values


def _ports(tok: Token | None, names: list[str]) -> list[int | None]:
    if tok is None:
        return [None] * len(names)
    # ``Port=[10001-10003]`` gives each of several slurmds on one host its own port.
    return [Token(tok.key, v, tok.path, tok.line).as_int(1, 65535) for v in _parallel(tok, names)]


def _gres(tok: Token | None) -> str:
    """``Gres=`` kept as written (the CLIs print it), but checked here so a typo fails at start."""
    if tok is None:
        return ""
    try:
        parse_gres(tok.value)
    except GresError as e:
        raise tok.error(f"invalid {tok.key} value {tok.value!r}: {e}") from None
    return tok.value


def _node_shape(rec: Record) -> NodeConfig:
    """Everything but name/hostname/address/port, which differ per expanded name."""
    def num(key: str, default: int, minimum: int = 1, maximum: int = UINT16_MAX) -> int:
        tok = rec.get(key)
        return default if tok is None else tok.as_int(minimum, maximum)

    cpus_tok = rec.get("cpus") or rec.get("procs")
    boards, cores, threads = num("boards", 1), num("corespersocket", 1), num("threadspercore", 1)
    if "sockets" in rec and "socketsperboard" in rec:
        raise rec["socketsperboard"].error("Sockets and SocketsPerBoard are mutually exclusive")
    if "sockets" in rec:
        sockets = num("sockets", 1)
    elif "socketsperboard" in rec:
        sockets = boards * num("socketsperboard", 1)
    elif cpus_tok is not None:
        # CPUs alone: infer the sockets, so ``CPUs=8`` is 8 one-core sockets, as in Slurm.
        sockets = max(1, cpus_tok.as_int(1, UINT16_MAX) // (cores * threads))
    else:
        sockets = boards
    product = sockets * cores * threads
    if product > UINT16_MAX:    # Slurm's CPU counts are uint16
        raise (cpus_tok or rec["nodename"]).error(f"Sockets*CoresPerSocket*ThreadsPerCore ({product}) is out of range")
    cpus = product if cpus_tok is None else cpus_tok.as_int(1, UINT16_MAX)
    if cpus_tok is not None and cpus not in (product, sockets * cores):
        # CPUs may count threads or cores; anything else is reset, with a warning, as in Slurm.
        _log.warning("%s: %s=%d does not match Sockets*CoresPerSocket*ThreadsPerCore=%d; using %d",
                     cpus_tok.where, cpus_tok.key, cpus, product, product)
        cpus = product

    features_tok = rec.get("features") or rec.get("feature")
    features = tuple(f.strip() for f in features_tok.value.split(",") if f.strip()) if features_tok else ()
    return NodeConfig(
        name="", hostname="", address="", port=None,
        cpus=cpus, sockets=sockets, cores_per_socket=cores, threads_per_core=threads,
        real_memory_mb=rec["realmemory"].as_memory_mb() if "realmemory" in rec else 1,
        tmp_disk_mb=rec["tmpdisk"].as_memory_mb() if "tmpdisk" in rec else 0,
        gres=_gres(rec.get("gres")),
        features=features,
        weight=num("weight", 1, minimum=0, maximum=UINT32_MAX),
        state=rec["state"].as_choice(_NODE_STATES) if "state" in rec else None,
        reason=rec["reason"].value if "reason" in rec else None,
    )


def parse_node_line(text: str, origin: Path) -> NodeConfig:
    """One node given outside slurm.conf, as a ``NodeName=<name> Key=Value ...`` line (a dynamic
    node's ``pyslurmd -Z --conf``); ``origin`` names it in errors. Raises :class:`ConfigError`."""
    tokens = tokenize(text.strip(), origin, 1)
    if not tokens or tokens[0].lower != "nodename":
        raise ConfigError(origin, 1, "a node definition must start with NodeName=")
    warn_keys(tokens, NODE_KEYS, NODE_KEYS_IGNORED, f"NodeName={tokens[0].value}")
    nodes = build_nodes([{t.lower: t for t in tokens}])
    if len(nodes) != 1:
        raise tokens[0].error(f"a dynamic node definition names one node, not {tokens[0].value!r}")
    return nodes[0]


def parse_partition_line(text: str, origin: Path, cfg: SlurmConfig, node_names: Iterable[str]) -> PartitionConfig:
    """One partition given outside slurm.conf (scontrol create/update partition) as a
    ``PartitionName=<name> Key=Value ...`` line; later keys win. ``node_names`` are the nodes
    ``Nodes=`` may name (ALL: every one). Raises :class:`ConfigError`."""
    tokens = tokenize(text.strip(), origin, 1)
    if not tokens or tokens[0].lower != "partitionname":
        raise ConfigError(origin, 1, "a partition definition must start with PartitionName=")
    warn_keys(tokens, PARTITION_KEYS, PARTITION_KEYS_IGNORED, f"PartitionName={tokens[0].value}")
    max_mem = cfg.value("MaxMemPerNode")
    return _partition({t.lower: t for t in tokens}, tuple(node_names), cfg.def_mem_per_cpu_mb,
                      optional_memory(Token("MaxMemPerNode", max_mem, cfg.path, 0)) if max_mem else None,
                      cfg.nodesets)


def apply_down_nodes(nodes: tuple[NodeConfig, ...], records: list[Record]) -> tuple[NodeConfig, ...]:
    """``DownNodes=<list> [State=DOWN] [Reason=..]`` marks configured nodes at startup."""
    by_name = {n.name: n for n in nodes}
    for rec in records:
        list_tok = rec["downnodes"]
        state = rec["state"].as_choice(_NODE_STATES) if "state" in rec else "DOWN"
        reason = rec["reason"].value if "reason" in rec else None
        for name in list_tok.as_hostlist():
            if name not in by_name:
                raise list_tok.error(f"DownNodes names unknown node {name!r}")
            by_name[name] = dataclasses.replace(by_name[name], state=state, reason=reason)
    return tuple(by_name[n.name] for n in nodes)


# --------------------------------------------------------------------------------------------
# NodeSet


def build_nodesets(records: list[Record], nodes: tuple[NodeConfig, ...]) -> tuple[NodeSetConfig, ...]:
    """One NodeSet per record; its members are resolved here against the configured nodes."""
    names = {n.name for n in nodes}
    sets: dict[str, NodeSetConfig] = {}
    for rec in records:
        name_tok = rec["nodeset"]
        if name_tok.value in names:
            raise name_tok.error(f"NodeSet with name {name_tok.value} overlaps with an existing NodeName")
        if name_tok.value in sets:
            raise name_tok.error(f"duplicate NodeSet {name_tok.value!r}")
        feature = rec["feature"].value if "feature" in rec and rec["feature"].value else None
        nodes_tok = rec.get("nodes")
        takes_all = nodes_tok is not None and nodes_tok.value.upper() == "ALL"
        listed = [n.name for n in nodes] if takes_all else nodes_tok.as_hostlist() if nodes_tok else []
        featured = [n.name for n in nodes if feature is not None and feature in n.features]
        sets[name_tok.value] = NodeSetConfig(name_tok.value, tuple(dict.fromkeys(listed + featured)),
                                             feature, takes_all)
    return tuple(sets.values())


# --------------------------------------------------------------------------------------------
# PartitionName


_OVERSUBSCRIBE = re.compile(r"(NO|EXCLUSIVE|YES|FORCE)(?::(\d+))?")


def build_partitions(records: list[Record], nodes: tuple[NodeConfig, ...], def_mem: int | None,
                     max_mem: int | None, nodesets: tuple[NodeSetConfig, ...] = ()) -> tuple[PartitionConfig, ...]:
    all_names = tuple(n.name for n in nodes)
    parts: list[PartitionConfig] = []
    default_at: dict[str, str] = {}
    for rec in records:
        name_tok = rec["partitionname"]
        if any(p.name == name_tok.value for p in parts):
            raise name_tok.error(f"duplicate PartitionName {name_tok.value!r}")
        part = _partition(rec, all_names, def_mem, max_mem, nodesets)
        if part.is_default:
            default_at[part.name] = name_tok.where
        parts.append(part)
    if len(default_at) > 1:
        # Slurm keeps the last Default=YES; make it the only one so every lookup agrees.
        last = list(default_at)[-1]
        _log.warning("%s: several partitions have Default=YES; %s is the default", default_at[last], last)
        parts = [dataclasses.replace(p, is_default=(p.name == last)) for p in parts]
    return tuple(parts)


def _partition(rec: Record, all_names: tuple[str, ...], def_mem: int | None, max_mem: int | None,
               nodesets: tuple[NodeSetConfig, ...] = ()) -> PartitionConfig:
    name = rec["partitionname"].value
    node_tok = rec.get("nodes")
    members: tuple[str, ...] = ()
    takes_all = node_tok is not None and node_tok.value.upper() == "ALL"
    used_sets: list[NodeSetConfig] = []
    if takes_all:
        members = all_names
    elif node_tok is not None:
        # Each NodeSet named among the hosts stands for its members (Slurm's nodespec_to_hostlist).
        by_name = {s.name: s for s in nodesets}
        expanded: list[str] = []
        for word in node_tok.as_hostlist():
            if word in by_name:
                used_sets.append(by_name[word])
                expanded.extend(by_name[word].nodes)
            else:
                expanded.append(word)
        members = tuple(dict.fromkeys(expanded))
        known = set(all_names)
        for member in members:
            if member not in known:
                raise node_tok.error(f"Nodes= of PartitionName={name} names unknown node {member!r}")
        takes_all = any(s.takes_all for s in used_sets)

    def num(key: str, default: int, minimum: int = 0) -> int:
        tok = rec.get(key)
        return default if tok is None else tok.as_int(minimum)

    priority = num("priority", 1)  # the pre-16.05 key: default for both tier and job factor
    max_nodes_tok = rec.get("maxnodes")
    max_nodes: int | None = None
    if max_nodes_tok is not None and max_nodes_tok.value.upper() not in ("UNLIMITED", "INFINITE"):
        max_nodes = max_nodes_tok.as_int(1)
    return PartitionConfig(
        name=name,
        nodes=members,
        node_expr=node_tok.value if node_tok is not None else "",
        is_default=rec["default"].as_bool() if "default" in rec else False,
        state=rec["state"].as_choice(_PARTITION_STATES) if "state" in rec else "UP",
        max_time_min=rec["maxtime"].as_time_limit() if "maxtime" in rec else UNLIMITED,
        default_time_min=rec["defaulttime"].as_time_limit() if "defaulttime" in rec else None,
        max_nodes=max_nodes,
        min_nodes=num("minnodes", 0),
        priority_tier=num("prioritytier", priority),
        priority_job_factor=num("priorityjobfactor", priority),
        over_subscribe=_over_subscribe(rec.get("oversubscribe") or rec.get("shared")),
        def_mem_per_cpu_mb=optional_memory(rec["defmempercpu"]) if "defmempercpu" in rec else def_mem,
        max_mem_per_node_mb=optional_memory(rec["maxmempernode"]) if "maxmempernode" in rec else max_mem,
        preempt_mode=parse_mode(rec["preemptmode"]) if "preemptmode" in rec else None,
        grace_time=parse_grace_time(rec["gracetime"]) if "gracetime" in rec else 0,
        allow_accounts=_allow_list(rec.get("allowaccounts")),
        deny_accounts=_allow_list(rec.get("denyaccounts")) or (),
        allow_qos=_allow_list(rec.get("allowqos")),
        deny_qos=_allow_list(rec.get("denyqos")) or (),
        qos=rec["qos"].value.lower() if "qos" in rec else "",
        hidden=rec["hidden"].as_bool() if "hidden" in rec else False,
        takes_all=takes_all,
        node_features=tuple(dict.fromkeys(s.feature for s in used_sets if s.feature is not None)),
    )


def _allow_list(tok: Token | None) -> tuple[str, ...] | None:
    """AllowAccounts/DenyAccounts/AllowQos/DenyQos: lower-cased names; None for absent or ALL."""
    if tok is None or tok.value.upper() == "ALL":
        return None
    return tuple(name.strip().lower() for name in tok.value.split(",") if name.strip())


def _over_subscribe(tok: Token | None) -> str:
    """NO, EXCLUSIVE, YES[:N], FORCE[:N] → the form ``show partition`` prints (N defaults to 4)."""
    if tok is None:
        return "NO"
    m = _OVERSUBSCRIBE.fullmatch(tok.value.upper())
    if m is None or (m.group(1) in ("NO", "EXCLUSIVE") and m.group(2)) or m.group(2) == "0":
        raise tok.error(f"invalid {tok.key} value {tok.value!r}: expected NO, EXCLUSIVE, YES[:N] or FORCE[:N]")
    if m.group(1) in ("NO", "EXCLUSIVE"):
        return m.group(1)
    return f"{m.group(1)}:{int(m.group(2) or 4)}"
