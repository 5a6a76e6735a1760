"""slurm.conf and slurmdbd.conf, parsed once into typed immutable objects.

This module owns which global keys exist and what they mean: :class:`SlurmConfig` and
:class:`DbdConfig`.  The line syntax (comments, continuation, quoting, ``Include``) is
:mod:`pyslurm_common.conf_syntax`; the ``NodeName=``/``PartitionName=``/``DownNodes=`` records
(one :class:`~pyslurm_common.conf_records.NodeConfig` per node, one
:class:`~pyslurm_common.conf_records.PartitionConfig` per partition) are
:mod:`pyslurm_common.conf_records`.  Reconfiguring means loading a new object and swapping it in whole.

Errors: an invalid value, a missing ClusterName or SlurmctldHost, a partition naming an unknown
node, or a duplicate node raises :class:`ConfigError` (``<file>:<line>: <message naming the
key>``) — fatal for a daemon at start.  Unknown keys are only *warned about* with file:line: a
deliberate difference from Slurm (which refuses to start) so that one file serves both.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from pyslurm_common.bounds import ARRAY_INDEX_MAX, UINT16_MAX, UINT32_MAX
from pyslurm_common.client_settings import DEFAULT_AUTH_SOCKET, DEFAULT_KEY_NAME, auth_info, check_usable, config_path
from pyslurm_common.conf_records import (DOWN_KEYS, NODE_KEYS, NODE_KEYS_IGNORED, NODESET_KEYS, PARTITION_KEYS,
                                         PARTITION_KEYS_IGNORED, NodeConfig, NodeSetConfig, PartitionConfig, Record,
                                         add_record, apply_down_nodes, build_nodes, build_nodesets,
                                         build_partitions, key_table, optional_memory, warn_keys)
from pyslurm_common.conf_syntax import ConfigError, Token, read_conf
from pyslurm_common.daemon_log import LEVEL_NAMES
from pyslurm_common.daemon_settings import (ControllerSettings, NodeAgentSettings, controller_settings,
                                            node_agent_settings)
from pyslurm_common.licenses import LicenseError, parse_licenses
from pyslurm_common.plugin_keys import check_plugins
from pyslurm_common.preempt_conf import PreemptConfig, preempt_config

__all__ = [
    "ConfigError",
    "ControllerHost",
    "DbdConfig",
    "SlurmConfig",
    "config_path",
    "load_config",
    "load_dbd_config",
]

_log = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------------
# typed configuration


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
    message_timeout: int = 10       # MessageTimeout: also how many seconds clients retry a lost controller
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
    nodesets: tuple[NodeSetConfig, ...] = ()
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

_GLOBAL = key_table(_GLOBAL_KEYS)
_DBD = key_table(_DBD_KEYS)

# Record types of other files or of features we do not model: the line is skipped, warned.
_UNSUPPORTED_RECORDS = frozenset({"frontendname", "switchname"})
_RECORD_KEYS = frozenset({"nodename", "nodeset", "partitionname", "downnodes"}) | _UNSUPPORTED_RECORDS

# Index = the numeric spelling (SlurmctldDebug=3 is info).
_DEBUG_LEVELS = LEVEL_NAMES


def known_global_key(lower: str, record: bool = False) -> bool:
    """Whether slurm.conf knows `lower` as a global key (`record`: or as a record's first key)."""
    return lower in _GLOBAL or (record and lower in _RECORD_KEYS)


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
    nodeset_records: list[Record] = []

    lines = list(read_conf(path))
    check_usable(str(path), lines)
    for tokens in lines:
        head = tokens[0]
        if head.lower == "nodename":
            warn_keys(tokens, NODE_KEYS, NODE_KEYS_IGNORED, f"NodeName={head.value}")
            add_record(tokens, node_defaults, node_records)
        elif head.lower == "partitionname":
            warn_keys(tokens, PARTITION_KEYS, PARTITION_KEYS_IGNORED, f"PartitionName={head.value}")
            add_record(tokens, part_defaults, part_records)
        elif head.lower == "nodeset":
            warn_keys(tokens, NODESET_KEYS, {}, f"NodeSet={head.value}")
            nodeset_records.append({t.lower: t for t in tokens})
        elif head.lower == "downnodes":
            warn_keys(tokens, DOWN_KEYS, {}, f"DownNodes={head.value}")
            down_records.append({t.lower: t for t in tokens})
        elif head.lower in _UNSUPPORTED_RECORDS:
            _log.warning("%s: %s records are not supported by pyslurm; line ignored", head.where, head.key)
        else:
            _global_line(tokens, store, backups)

    cluster = _text(store, "clustername")
    if cluster is None:     # ClusterName= with no value
        raise ConfigError(path, None, "ClusterName needs to be specified")
    host, addr = _controller(path, store)
    backup_hosts = _backup_controllers(store, backups)
    def_mem = optional_memory(store.get("defmempercpu"))
    nodes = apply_down_nodes(build_nodes(node_records), down_records)
    nodesets = build_nodesets(nodeset_records, nodes)
    partitions = build_partitions(part_records, nodes, def_mem,
                                  optional_memory(store.get("maxmempernode")), nodesets)
    check_plugins(store)
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
        message_timeout=integer("messagetimeout", 10, minimum=1, maximum=UINT16_MAX),
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
        nodesets=nodesets,
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
