"""slurm.conf and slurmdbd.conf, parsed once into typed immutable objects.

This module owns which keys exist and what they mean: :class:`SlurmConfig` (with one
:class:`NodeConfig` per node and one :class:`PartitionConfig` per partition) and
:class:`DbdConfig`.  The line syntax (comments, continuation, quoting, ``Include``) is
:mod:`pyslurm_common.conf_syntax`.  ``NodeName=``/``PartitionName=``/``DownNodes=`` lines are
records; ``NodeName=DEFAULT``/``PartitionName=DEFAULT`` set defaults for *later* records and
accumulate.  Reconfiguring means loading a new object and swapping it in whole.

Errors: an invalid value, a missing ClusterName or SlurmctldHost, a partition naming an unknown
node, or a duplicate node raises :class:`ConfigError` (``<file>:<line>: <message naming the
key>``) — fatal for a daemon at start.  Unknown keys are only *warned about* with file:line: a
deliberate difference from Slurm (which refuses to start) so that one file serves both.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from pyslurm_common.bounds import ARRAY_INDEX_MAX, UINT16_MAX, UINT32_MAX
from pyslurm_common.client_settings import DEFAULT_AUTH_SOCKET, DEFAULT_KEY_NAME, auth_info, config_path
from pyslurm_common.conf_syntax import ConfigError, Token, read_conf, tokenize
from pyslurm_common.daemon_log import LEVEL_NAMES
from pyslurm_common.daemon_settings import (ControllerSettings, NodeAgentSettings, controller_settings,
                                            node_agent_settings)
from pyslurm_common.gres import GresError, parse_gres
from pyslurm_common.licenses import LicenseError, parse_licenses
from pyslurm_common.preempt_conf import ModeSpec, PreemptConfig, parse_grace_time, parse_mode, preempt_config
from pyslurm_common.units import UNLIMITED

__all__ = [
    "ConfigError",
    "ControllerHost",
    "DbdConfig",
    "NodeConfig",
    "PartitionConfig",
    "SlurmConfig",
    "config_path",
    "load_config",
    "load_dbd_config",
    "parse_partition_line",
    "parse_node_line",
]

_log = logging.getLogger(__name__)



# --------------------------------------------------------------------------------------------
# typed configuration


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


@dataclass(frozen=True, slots=True)
class ControllerHost:
    """One ``SlurmctldHost=name(addr)`` line: the first is the primary, later ones backups."""

    name: str
    addr: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SlurmConfig:
    """The whole slurm.conf.  ``entries`` keeps every global key as written, for ``show config``."""

    path: Path
    cluster_name: str  # lower-cased
    controller_host: str
    controller_addr: str
    backup_controllers: tuple[ControllerHost, ...] = ()   # further SlurmctldHost lines, in order
    slurmctld_timeout: int = 120    # seconds without the controller before a backup takes over
    ctld_port: int = 6817
    slurmd_port: int = 6818
    slurm_user: str = "root"
    state_save_location: Path = Path("/var/spool/pyslurm/ctld")
    slurmd_spool_dir: str = "/var/spool/pyslurm/d"  # raw: may contain %n / %h
    kill_wait: int = 30
    slurmd_timeout: int = 300
    min_job_age: int = 300
    first_job_id: int = 1
    max_job_count: int = 10000
    max_array_size: int = 1001    # array indices run 0 .. MaxArraySize-1
    def_mem_per_cpu_mb: int | None = None
    accounting_storage_type: str = "accounting_storage/none"
    accounting_storage_host: str | None = None
    accounting_storage_port: int = 6819
    # AccountingStorageEnforce words with their implications (limits/qos/safe/wckeys imply
    # associations, safe implies limits); empty: accounting enforces nothing.
    accounting_storage_enforce: frozenset[str] = frozenset()
    auth_socket: Path = Path(DEFAULT_AUTH_SOCKET)
    key_file: Path
    slurmctld_log_file: str | None = None
    slurmd_log_file: str | None = None
    slurmctld_pid_file: str | None = None
    slurmd_pid_file: str | None = None
    slurmctld_debug: str = "info"
    slurmd_debug: str = "info"
    nodes: tuple[NodeConfig, ...] = ()
    partitions: tuple[PartitionConfig, ...] = ()
    preempt: PreemptConfig = PreemptConfig()
    licenses: tuple[tuple[str, int], ...] = ()    # Licenses=: (name, total), as written
    ctld_settings: ControllerSettings = ControllerSettings()
    slurmd_settings: NodeAgentSettings = NodeAgentSettings()
    entries: tuple[tuple[str, str], ...] = ()
    # lower-case global key -> (file, line) where it was set: errors found after load_config
    # (settings only the controller parses) still name the line.
    locations: Mapping[str, tuple[str, int]] = field(default_factory=dict, repr=False, compare=False)
    _node_index: Mapping[str, NodeConfig] = field(init=False, repr=False, compare=False)
    _private_data: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Derived once; the object is frozen, so neither can go stale. PrivateData is read on
        # every job listing (squeue is polled), so it is not re-split there.
        object.__setattr__(self, "_node_index", {n.name: n for n in self.nodes})
        object.__setattr__(self, "_private_data", frozenset(
            w.strip() for w in (self.value("PrivateData") or "").lower().split(",") if w.strip()))

    def node(self, name: str) -> NodeConfig:
        """The node called ``name``; KeyError if it is not configured."""
        return self._node_index[name]

    def partition(self, name: str) -> PartitionConfig:
        """The partition called ``name``; KeyError if it is not configured."""
        for part in self.partitions:
            if part.name == name:
                return part
        raise KeyError(name)

    @property
    def controllers(self) -> tuple[ControllerHost, ...]:
        """Every SlurmctldHost in order: clients and node agents try them in this order."""
        return (ControllerHost(self.controller_host, self.controller_addr), *self.backup_controllers)

    @property
    def default_partition(self) -> PartitionConfig | None:
        return next((p for p in self.partitions if p.is_default), None)

    @property
    def accounting_enabled(self) -> bool:
        return self.accounting_storage_type == "accounting_storage/slurmdbd"

    @property
    def private_data(self) -> frozenset[str]:
        """PrivateData's words, lower-cased (jobs, usage, users, accounts, events ...)."""
        return self._private_data

    def config_error(self, key: str, message: str) -> ConfigError:
        """`message` at the file:line that set the global `key` (the file alone if none did)."""
        path, line = self.locations.get(key.lower(), (str(self.path), None))
        return ConfigError(path, line, message)

    def value(self, key: str) -> str | None:
        """A global key's value as written (key matched case-insensitively), or None."""
        wanted = key.lower()
        return next((v for k, v in self.entries if k.lower() == wanted), None)

    def spool_dir_for(self, node_name: str) -> Path:
        """SlurmdSpoolDir for one node."""
        return Path(self.node_path(self.slurmd_spool_dir, node_name))

    def node_path(self, template: str, node_name: str) -> str:
        """A per-node slurmd path (spool, log, pid file): ``%n`` → node name, ``%h`` → its hostname."""
        node = self._node_index.get(node_name)
        hostname = node.hostname if node is not None else node_name
        return template.replace("%n", node_name).replace("%h", hostname)


@dataclass(frozen=True, slots=True, kw_only=True)
class DbdConfig:
    """slurmdbd.conf: where the accounting daemon listens and which database it uses."""

    path: Path
    dbd_host: str = "localhost"
    dbd_addr: str = "localhost"  # DbdAddr, else DbdHost
    dbd_port: int = 6819
    storage_url: str  # an SQLAlchemy URL
    slurm_user: str = "root"
    log_file: str | None = None
    pid_file: str | None = None
    debug: str = "info"
    entries: tuple[tuple[str, str], ...] = ()


# --------------------------------------------------------------------------------------------
# key tables: canonical spellings (lookups are by lower case)

_GLOBAL_KEYS = """
AccountingStorageEnforce AccountingStorageExternalHost AccountingStorageHost
AccountingStorageParameters AccountingStoragePass AccountingStoragePort AccountingStorageTRES
AccountingStorageType AccountingStorageUser AccountingStoreFlags AcctGatherNodeFreq
AuthAltParameters AuthAltTypes AuthInfo AuthType BackupAddr BackupController
BatchStartTimeout CliFilterPlugins ClusterName CommunicationParameters CompleteWait
ControlAddr ControlMachine CoreSpecPlugin CpuFreqDef CredType DebugFlags DefCpuPerGPU
DefMemPerCPU DefMemPerGPU DefMemPerNode DependencyParameters DisableRootJobs EnforcePartLimits
Epilog EpilogMsgTime EpilogSlurmctld FairShareDampeningFactor FirstJobId GpuFreqDef GresTypes
GpuIdleParameters GpuJobMappingDir GroupUpdateForce GroupUpdateTime HashPlugin HealthCheckInterval HealthCheckNodeState
HealthCheckProgram InactiveLimit JobAcctGatherFrequency JobAcctGatherParams
JobAcctGatherType JobCompHost JobCompLoc JobCompParams JobCompPass JobCompPort JobCompType
JobCompUser JobContainerType JobFileAppend JobRequeue JobSubmitPlugins KillOnBadExit KillWait
LaunchParameters Licenses LogTimeFormat MailDomain MailProg MaxArraySize MaxJobCount MaxJobId
MaxMemPerCPU MaxMemPerNode MaxNodeCount MaxStepCount MaxTasksPerNode MCSParameters MCSPlugin
MessageTimeout MetricsAuthUsers MetricsParameters MetricsType MinJobAge MpiDefault MpiParams NotifyWebhookURL
OverTimeLimit PluginDir PlugStackConfig
PreemptExemptTime PreemptMode PreemptParameters PreemptType PrivateData ProctrackType Prolog
PrologEpilogTimeout PrologFlags PrologSlurmctld PropagatePrioProcess PropagateResourceLimits
PropagateResourceLimitsExcept PriorityCalcPeriod PriorityDecayHalfLife PriorityFavorSmall
PriorityFlags PriorityMaxAge PriorityParameters PriorityType PriorityUsageResetPeriod
PriorityWeightAge PriorityWeightAssoc PriorityWeightFairshare PriorityWeightJobSize
PriorityWeightPartition PriorityWeightQOS PriorityWeightTRES RebootProgram ReconfigFlags
RequeueExit RequeueExitHold ResumeFailProgram ResumeProgram ResumeRate ResumeTimeout
ResvEpilog ResvOverRun ResvProlog ReturnToService SchedulerParameters SchedulerTimeSlice
SchedulerType SelectType SelectTypeParameters SlurmctldAddr SlurmctldDebug SlurmctldHost
SlurmctldLogFile SlurmctldParameters SlurmctldPidFile SlurmctldPort SlurmctldPrimaryOffProg
SlurmctldPrimaryOnProg SlurmctldSyslogDebug SlurmctldTimeout SlurmdDebug SlurmdLogFile
SlurmdParameters SlurmdPidFile SlurmdPort SlurmdSpoolDir SlurmdSyslogDebug SlurmdTimeout
SlurmdUser SlurmSchedLogFile SlurmSchedLogLevel SlurmUser SrunEpilog SrunPortRange SrunProlog
StateSaveLocation SuspendExcNodes SuspendExcParts SuspendExcStates SuspendProgram SuspendRate
SuspendTime SuspendTimeout SwitchParameters SwitchType TaskEpilog TaskPlugin TaskPluginParam
TaskProlog TCPTimeout TmpFS TopologyParam TopologyPlugin TrackWCKey TreeWidth
UnkillableStepProgram UnkillableStepTimeout UsePAM VSizeFactor WaitTime X11Parameters
"""
_NODE_KEYS = """
NodeName NodeHostname NodeAddr CPUs Procs Boards SocketsPerBoard Sockets CoresPerSocket
ThreadsPerCore RealMemory TmpDisk Gres Features Feature Weight State Port Reason
"""
_NODE_KEYS_IGNORED = "BcastAddr CoreSpecCount CpuBind CpuSpecList MemSpecLimit TRESWeights"
_PARTITION_KEYS = """
PartitionName Nodes Default MaxTime DefaultTime MaxNodes MinNodes State PriorityTier
PriorityJobFactor Priority OverSubscribe Shared DefMemPerCPU MaxMemPerNode PreemptMode GraceTime
AllowAccounts DenyAccounts AllowQos DenyQos QOS Hidden
"""
_PARTITION_KEYS_IGNORED = """
AllocNodes AllowGroups Alternate CpuBind DefCpuPerGPU DefMemPerGPU
DefMemPerNode DisableRootJobs ExclusiveUser LLN
MaxCPUsPerNode MaxCPUsPerSocket MaxMemPerCPU OverTimeLimit PowerDownOnIdle
ReqResv ResumeTimeout RootOnly SelectTypeParameters SuspendTime SuspendTimeout
TRESBillingWeights
"""
_DOWN_KEYS = "DownNodes State Reason"
_DBD_KEYS = """
AllowNoDefAcct ArchiveDir ArchiveEvents ArchiveJobs ArchiveResvs ArchiveScript ArchiveSteps
ArchiveSuspend ArchiveTXN ArchiveUsage AuthAltParameters AuthAltTypes AuthInfo AuthType
CommitDelay CommunicationParameters DbdAddr DbdBackupHost DbdHost DbdPort DebugFlags
DebugLevel DebugLevelSyslog DefaultQOS HashPlugin LogFile LogTimeFormat MaxQueryTimeRange
MessageTimeout Parameters PidFile PluginDir PrivateData PurgeEventAfter PurgeJobAfter
PurgeResvAfter PurgeStepAfter PurgeSuspendAfter PurgeTXNAfter PurgeUsageAfter SlurmUser
StorageHost StorageLoc StorageParameters StoragePass StoragePort StorageType StorageURL
StorageUser TCPTimeout TrackSlurmctldDown TrackWCKey
"""


def _table(words: str) -> dict[str, str]:
    return {w.lower(): w for w in words.split()}


_GLOBAL = _table(_GLOBAL_KEYS)
_NODE, _NODE_IGNORED = _table(_NODE_KEYS), _table(_NODE_KEYS_IGNORED)
_PARTITION, _PARTITION_IGNORED = _table(_PARTITION_KEYS), _table(_PARTITION_KEYS_IGNORED)
_DOWN = _table(_DOWN_KEYS)
_DBD = _table(_DBD_KEYS)

# Record types of other files or of features we do not model: the line is skipped, warned.
_UNSUPPORTED_RECORDS = frozenset({"frontendname", "nodeset", "switchname"})
_RECORD_KEYS = frozenset({"nodename", "partitionname", "downnodes"}) | _UNSUPPORTED_RECORDS

_NODE_STATES = frozenset({"CLOUD", "DOWN", "DRAIN", "FAIL", "FAILING", "FUTURE", "UNKNOWN"})
_PARTITION_STATES = frozenset({"UP", "DOWN", "DRAIN", "INACTIVE"})
# Index = the numeric spelling (SlurmctldDebug=3 is info).
_DEBUG_LEVELS = LEVEL_NAMES

Record = dict[str, Token]  # lower-case key → token; the record's own name key included


def _warn_keys(tokens: Iterable[Token], known: Mapping[str, str],
               ignored: Mapping[str, str], what: str) -> None:
    for tok in tokens:
        if tok.lower in ignored:
            _log.warning("%s: %s is not supported by pyslurm and is ignored (%s)", tok.where, tok.key, what)
        elif tok.lower not in known:
            _log.warning("%s", tok.unrecognized())


def _store_globals(tokens: Iterable[Token], table: Mapping[str, str], store: Record) -> None:
    """Global keys: the last occurrence wins (as in Slurm); unknown ones are warned and kept."""
    for tok in tokens:
        if tok.lower not in table:
            _log.warning("%s", tok.unrecognized())
        store[tok.lower] = tok


def _entries(store: Record, table: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple((table.get(k, tok.key), tok.value) for k, tok in store.items())


def _text(store: Record, key: str) -> str | None:
    tok = store.get(key)
    return tok.value if tok is not None and tok.value else None


def _debug(tok: Token | None) -> str:
    if tok is None:
        return "info"
    word = tok.value.lower()
    if word.isdigit() and int(word) < len(_DEBUG_LEVELS):
        return _DEBUG_LEVELS[int(word)]
    if word not in _DEBUG_LEVELS:
        raise tok.error(f"invalid {tok.key} value {tok.value!r}: expected one of {', '.join(_DEBUG_LEVELS)}")
    return word


ENFORCE_WORDS = ("associations", "limits", "nojobs", "nosteps", "qos", "safe", "wckeys")
_ENFORCE_IMPLIES = {"limits": ("associations",), "qos": ("associations",), "wckeys": ("associations",),
                    "safe": ("associations", "limits")}


def _licenses(tok: Token | None) -> tuple[tuple[str, int], ...]:
    """Licenses=name[:count],...: each license's total (names given twice add up)."""
    if tok is None:
        return ()
    try:
        return tuple(parse_licenses(tok.value).items())
    except LicenseError as exc:
        raise tok.error(f"invalid Licenses value {tok.value!r}: {exc}") from None


def _enforce(tok: Token | None) -> frozenset[str]:
    """AccountingStorageEnforce: its words plus what each implies (``all``: all but nojobs/nosteps)."""
    words: set[str] = set()
    if tok is None:
        return frozenset()
    for word in tok.value.lower().split(","):
        word = word.strip()
        if word == "all":
            words.update(w for w in ENFORCE_WORDS if w not in ("nojobs", "nosteps"))
        elif word in ENFORCE_WORDS:
            words.update((word, *_ENFORCE_IMPLIES.get(word, ())))
        elif word not in ("", "none", "0"):
            raise tok.error(f"invalid {tok.key} value {word!r}: expected {', '.join(ENFORCE_WORDS)} or all")
    return frozenset(words)


def _optional_memory(tok: Token | None) -> int | None:
    """DefMem*/MaxMem*: absent, 0 and UNLIMITED all mean "no value"."""
    if tok is None or tok.value.upper() in ("UNLIMITED", "INFINITE"):
        return None
    return tok.as_memory_mb() or None


# --------------------------------------------------------------------------------------------
# slurm.conf


def load_config(path: Path | None = None) -> SlurmConfig:
    """Read slurm.conf and its Includes; raises :class:`ConfigError` on any invalid value."""
    path = Path(config_path()) if path is None else path
    store: Record = {}
    backups: list[Token] = []   # SlurmctldHost lines after the first
    node_defaults: Record = {}
    part_defaults: Record = {}
    node_records: list[Record] = []
    part_records: list[Record] = []
    down_records: list[Record] = []

    for tokens in read_conf(path):
        head = tokens[0]
        if head.lower == "nodename":
            _warn_keys(tokens, _NODE, _NODE_IGNORED, f"NodeName={head.value}")
            _add_record(tokens, node_defaults, node_records)
        elif head.lower == "partitionname":
            _warn_keys(tokens, _PARTITION, _PARTITION_IGNORED, f"PartitionName={head.value}")
            _add_record(tokens, part_defaults, part_records)
        elif head.lower == "downnodes":
            _warn_keys(tokens, _DOWN, {}, f"DownNodes={head.value}")
            down_records.append({t.lower: t for t in tokens})
        elif head.lower in _UNSUPPORTED_RECORDS:
            _log.warning("%s: %s records are not supported by pyslurm; line ignored", head.where, head.key)
        else:
            _global_line(tokens, store, backups)

    cluster = _text(store, "clustername")
    if cluster is None:
        raise ConfigError(path, None, "ClusterName is required")
    host, addr = _controller(path, store)
    backup_hosts = _backup_controllers(store, backups)
    def_mem = _optional_memory(store.get("defmempercpu"))
    nodes = _apply_down_nodes(_build_nodes(node_records), down_records)
    partitions = _build_partitions(part_records, nodes, def_mem,
                                   _optional_memory(store.get("maxmempernode")))
    auth = auth_info(store.get("authinfo"), str(path.parent))
    acct_type = _text(store, "accountingstoragetype")

    def integer(key: str, default: int, minimum: int = 0, maximum: int = UINT32_MAX) -> int:
        tok = store.get(key)
        return default if tok is None else tok.as_int(minimum, maximum)

    def port(key: str, default: int) -> int:
        tok = store.get(key)
        return default if tok is None else tok.as_port()

    return SlurmConfig(
        path=path,
        cluster_name=cluster.lower(),
        controller_host=host,
        controller_addr=addr,
        backup_controllers=backup_hosts,
        slurmctld_timeout=integer("slurmctldtimeout", 120),
        ctld_port=port("slurmctldport", 6817),
        slurmd_port=port("slurmdport", 6818),
        slurm_user=_text(store, "slurmuser") or "root",
        state_save_location=Path(_text(store, "statesavelocation") or "/var/spool/pyslurm/ctld"),
        slurmd_spool_dir=_text(store, "slurmdspooldir") or "/var/spool/pyslurm/d",
        kill_wait=integer("killwait", 30),
        slurmd_timeout=integer("slurmdtimeout", 300),
        min_job_age=integer("minjobage", 300),
        first_job_id=integer("firstjobid", 1, minimum=1),
        max_job_count=integer("maxjobcount", 10000, minimum=1),
        max_array_size=integer("maxarraysize", 1001, maximum=ARRAY_INDEX_MAX + 1),
        def_mem_per_cpu_mb=def_mem,
        accounting_storage_type=(acct_type or "accounting_storage/none").lower(),
        accounting_storage_host=_text(store, "accountingstoragehost"),
        accounting_storage_port=port("accountingstorageport", 6819),
        accounting_storage_enforce=_enforce(store.get("accountingstorageenforce")),
        auth_socket=Path(auth.get("socket", DEFAULT_AUTH_SOCKET)),
        key_file=Path(auth["key"]) if "key" in auth else path.parent / DEFAULT_KEY_NAME,
        slurmctld_log_file=_text(store, "slurmctldlogfile"),
        slurmd_log_file=_text(store, "slurmdlogfile"),
        slurmctld_pid_file=_text(store, "slurmctldpidfile"),
        slurmd_pid_file=_text(store, "slurmdpidfile"),
        slurmctld_debug=_debug(store.get("slurmctlddebug")),
        slurmd_debug=_debug(store.get("slurmddebug")),
        nodes=nodes,
        partitions=partitions,
        preempt=preempt_config(store.get("preempttype"), store.get("preemptmode"), store.get("preemptexempttime")),
        licenses=_licenses(store.get("licenses")),
        ctld_settings=controller_settings(store),
        slurmd_settings=node_agent_settings(store),
        entries=_entries(store, _GLOBAL),
        locations={key: (str(tok.path), tok.line) for key, tok in store.items()},
    )


def _global_line(tokens: list[Token], store: Record, backups: list[Token]) -> None:
    """A line of global keys; a record key other than first on a line is an error.
    A repeated SlurmctldHost names a backup controller and goes to `backups`."""
    kept: list[Token] = []
    for tok in tokens:
        if tok.lower in _RECORD_KEYS:
            raise tok.error(f"{tok.key}= must start its line")
        if tok.lower == "slurmctldhost" and ("slurmctldhost" in store
                                             or any(t.lower == "slurmctldhost" for t in kept)):
            backups.append(tok)
            continue
        kept.append(tok)
    _store_globals(kept, _GLOBAL, store)


def _add_record(tokens: list[Token], defaults: Record, records: list[Record]) -> None:
    """A ``DEFAULT`` line updates the defaults for later lines; any other line snapshots them."""
    own = {t.lower: t for t in tokens}
    if tokens[0].value.upper() == "DEFAULT":
        del own[tokens[0].lower]
        defaults.update(own)
    else:
        records.append({**defaults, **own})


_CTLD_HOST = re.compile(r"([^()\s]+)(?:\(([^()\s]+)\))?")


def _controller(path: Path, store: Record) -> tuple[str, str]:
    """SlurmctldHost=host[(addr)], or the pre-18.08 ControlMachine/ControlAddr pair."""
    tok = store.get("slurmctldhost")
    if tok is not None:
        return _host_and_addr(tok)
    machine = _text(store, "controlmachine")
    if machine is None:
        raise ConfigError(path, None, "SlurmctldHost is required")
    return machine, _text(store, "controladdr") or machine


def _host_and_addr(tok: Token) -> tuple[str, str]:
    m = _CTLD_HOST.fullmatch(tok.value)
    if m is None:
        raise tok.error(f"invalid SlurmctldHost value {tok.value!r}: expected host or host(addr)")
    return m.group(1), m.group(2) or m.group(1)


def _backup_controllers(store: Record, repeats: list[Token]) -> tuple[ControllerHost, ...]:
    """The SlurmctldHost lines after the first, or the pre-18.08 BackupController/BackupAddr."""
    if repeats:
        return tuple(ControllerHost(*_host_and_addr(tok)) for tok in repeats)
    machine = _text(store, "backupcontroller")
    if machine is None or "slurmctldhost" in store:
        return ()
    return (ControllerHost(machine, _text(store, "backupaddr") or machine),)


# --------------------------------------------------------------------------------------------
# NodeName / DownNodes


def _build_nodes(records: list[Record]) -> tuple[NodeConfig, ...]:
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
    _warn_keys(tokens, _NODE, _NODE_IGNORED, f"NodeName={tokens[0].value}")
    nodes = _build_nodes([{t.lower: t for t in tokens}])
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
    _warn_keys(tokens, _PARTITION, _PARTITION_IGNORED, f"PartitionName={tokens[0].value}")
    max_mem = cfg.value("MaxMemPerNode")
    return _partition({t.lower: t for t in tokens}, tuple(node_names), cfg.def_mem_per_cpu_mb,
                      _optional_memory(Token("MaxMemPerNode", max_mem, cfg.path, 0)) if max_mem else None)


def _apply_down_nodes(nodes: tuple[NodeConfig, ...], records: list[Record]) -> tuple[NodeConfig, ...]:
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
# PartitionName


_OVERSUBSCRIBE = re.compile(r"(NO|EXCLUSIVE|YES|FORCE)(?::(\d+))?")


def _build_partitions(records: list[Record], nodes: tuple[NodeConfig, ...],
                      def_mem: int | None, max_mem: int | None) -> tuple[PartitionConfig, ...]:
    all_names = tuple(n.name for n in nodes)
    parts: list[PartitionConfig] = []
    default_at: dict[str, str] = {}
    for rec in records:
        name_tok = rec["partitionname"]
        if any(p.name == name_tok.value for p in parts):
            raise name_tok.error(f"duplicate PartitionName {name_tok.value!r}")
        part = _partition(rec, all_names, def_mem, max_mem)
        if part.is_default:
            default_at[part.name] = name_tok.where
        parts.append(part)
    if len(default_at) > 1:
        # Slurm keeps the last Default=YES; make it the only one so every lookup agrees.
        last = list(default_at)[-1]
        _log.warning("%s: several partitions have Default=YES; %s is the default", default_at[last], last)
        parts = [dataclasses.replace(p, is_default=(p.name == last)) for p in parts]
    return tuple(parts)


def _partition(rec: Record, all_names: tuple[str, ...],
               def_mem: int | None, max_mem: int | None) -> PartitionConfig:
    name = rec["partitionname"].value
    node_tok = rec.get("nodes")
    members: tuple[str, ...] = ()
    if node_tok is not None and node_tok.value.upper() == "ALL":
        members = all_names
    elif node_tok is not None:
        members = tuple(dict.fromkeys(node_tok.as_hostlist()))
        known = set(all_names)
        for member in members:
            if member not in known:
                raise node_tok.error(f"Nodes= of PartitionName={name} names unknown node {member!r}")

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
        def_mem_per_cpu_mb=_optional_memory(rec["defmempercpu"]) if "defmempercpu" in rec else def_mem,
        max_mem_per_node_mb=_optional_memory(rec["maxmempernode"]) if "maxmempernode" in rec else max_mem,
        preempt_mode=parse_mode(rec["preemptmode"]) if "preemptmode" in rec else None,
        grace_time=parse_grace_time(rec["gracetime"]) if "gracetime" in rec else 0,
        allow_accounts=_allow_list(rec.get("allowaccounts")),
        deny_accounts=_allow_list(rec.get("denyaccounts")) or (),
        allow_qos=_allow_list(rec.get("allowqos")),
        deny_qos=_allow_list(rec.get("denyqos")) or (),
        qos=rec["qos"].value.lower() if "qos" in rec else "",
        hidden=rec["hidden"].as_bool() if "hidden" in rec else False,
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


# --------------------------------------------------------------------------------------------
# slurmdbd.conf


_DEFAULT_SQLITE = Path("/var/lib/pyslurm/slurm_acct_db.sqlite")
_SERVER_DRIVERS = {
    "accounting_storage/mysql": ("mysql+pymysql", 3306),
    "accounting_storage/pgsql": ("postgresql+psycopg", 5432),
}


def load_dbd_config(path: Path | None = None) -> DbdConfig:
    """Read slurmdbd.conf (default: next to slurm.conf); raises :class:`ConfigError`."""
    path = Path(config_path()).parent / "slurmdbd.conf" if path is None else path
    store: Record = {}
    for tokens in read_conf(path):
        _store_globals(tokens, _DBD, store)
    host = _text(store, "dbdhost") or "localhost"
    port_tok = store.get("dbdport")
    return DbdConfig(
        path=path,
        dbd_host=host,
        dbd_addr=_text(store, "dbdaddr") or host,
        dbd_port=port_tok.as_port() if port_tok is not None else 6819,
        storage_url=_storage_url(path, store),
        slurm_user=_text(store, "slurmuser") or "root",
        log_file=_text(store, "logfile"),
        pid_file=_text(store, "pidfile"),
        debug=_debug(store.get("debuglevel")),
        entries=_entries(store, _DBD),
    )


def _storage_url(path: Path, store: Record) -> str:
    """StorageURL wins; otherwise an SQLAlchemy URL built from StorageType and friends."""
    url = _text(store, "storageurl")
    if url is not None:
        return url
    type_tok = store.get("storagetype")
    kind = type_tok.value.lower() if type_tok is not None else "accounting_storage/sqlite"
    loc = _text(store, "storageloc")
    if kind == "accounting_storage/sqlite":
        # A relative file lives next to the config, not in whatever cwd the daemon has.
        target = Path(loc) if loc else _DEFAULT_SQLITE
        return f"sqlite:///{target if target.is_absolute() else path.parent / target}"
    if type_tok is None or kind not in _SERVER_DRIVERS:
        assert type_tok is not None  # kind is the sqlite default when StorageType is absent
        raise type_tok.error(f"invalid StorageType value {type_tok.value!r}: expected "
                             "accounting_storage/sqlite, accounting_storage/mysql or accounting_storage/pgsql")
    driver, default_port = _SERVER_DRIVERS[kind]
    user = quote(_text(store, "storageuser") or "root", safe="")
    password = _text(store, "storagepass")
    auth = f"{user}:{quote(password, safe='')}" if password else user
    host = _text(store, "storagehost") or "localhost"
    port_tok = store.get("storageport")
    port = port_tok.as_port() if port_tok is not None else default_port
    return f"{driver}://{auth}@{host}:{port}/{loc or 'slurm_acct_db'}"
