"""The single-valued slurm.conf settings the controller and the node agents act on, typed once.

`load_config` builds both objects from the tokens it read, so a bad value stops every daemon at
start (and is refused at reconfigure) with `<file>:<line>: invalid <Key> value ...`, and no
daemon module looks at the raw text again. Absent keys take Slurm's defaults.

Controller: OverTimeLimit and ResvOverRun (minutes, or UNLIMITED), ReturnToService (0-2), JobRequeue (0/1),
AuthInfo's cred_expire (seconds; a requeued job waits one second longer than that).
Node agent: UnkillableStepTimeout (seconds), Prolog, Epilog, TaskProlog, TaskEpilog,
PrologEpilogTimeout (seconds, 0: none), JobAcctGatherFrequency (`N` or `task=N,energy=N,...`),
GpuJobMappingDir.

Errors: `ConfigError` (conf_syntax.py) at the key's file:line.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pyslurm_common.bounds import UINT16_MAX
from pyslurm_common.conf_syntax import Token
from pyslurm_common.units import UNLIMITED

DEFAULT_CRED_EXPIRE = 120                  # seconds (AuthInfo=cred_expire=)
MAX_OVER_TIME_LIMIT = UINT16_MAX - 2       # minutes; Slurm's largest before INFINITE
GATHER_TYPES = ("task", "energy", "network", "filesystem")   # JobAcctGatherFrequency's names


@dataclass(frozen=True, slots=True)
class ControllerSettings:
    over_time_limit_min: int = 0           # UNLIMITED (-1): a job is never ended for its time
    resv_over_run_min: int = 0             # a job outlives its reservation this long (UNLIMITED: forever)
    return_to_service: int = 0             # 0: a DOWN node stays down; 1: unless set by hand; 2: always back
    job_requeue: bool = True               # a batch job may be requeued unless --no-requeue
    cred_expire_s: int = DEFAULT_CRED_EXPIRE

    @property
    def requeue_delay_s(self) -> int:
        """How long a requeued job waits before it may start again (cred_expire + 1)."""
        return self.cred_expire_s + 1


@dataclass(frozen=True, slots=True)
class NodeAgentSettings:
    unkillable_step_timeout_s: int = 60
    prolog: str | None = None              # run as root before a job's first step here
    epilog: str | None = None              # and after its batch step
    task_prolog: str = ""                  # run as the user before each task ("": none)
    task_epilog: str = ""                  # and after it
    prolog_epilog_timeout_s: int | None = None   # None: no limit
    gather_frequency_s: int = 30           # task sampling interval; 0: at the end only
    gpu_job_mapping_dir: str | None = None


Store = Mapping[str, Token]   # lower-case key -> the last token that set it


def controller_settings(store: Store) -> ControllerSettings:
    over = store.get("overtimelimit")
    resv_over = store.get("resvoverrun")
    requeue = store.get("jobrequeue")
    rts = store.get("returntoservice")
    return ControllerSettings(
        over_time_limit_min=0 if over is None else _minutes_or_unlimited(over),
        resv_over_run_min=0 if resv_over is None else _minutes_or_unlimited(resv_over),
        return_to_service=0 if rts is None else rts.as_int(0, 2),
        job_requeue=True if requeue is None else bool(requeue.as_int(0, 1)),
        cred_expire_s=_cred_expire(store.get("authinfo")))


def node_agent_settings(store: Store) -> NodeAgentSettings:
    unkillable = store.get("unkillablesteptimeout")
    timeout = store.get("prologepilogtimeout")
    gather = store.get("jobacctgatherfrequency")
    return NodeAgentSettings(
        unkillable_step_timeout_s=60 if unkillable is None else unkillable.as_int(0),
        prolog=_text(store.get("prolog")), epilog=_text(store.get("epilog")),
        task_prolog=_text(store.get("taskprolog")) or "", task_epilog=_text(store.get("taskepilog")) or "",
        prolog_epilog_timeout_s=(timeout.as_int(0) or None) if timeout is not None else None,
        gather_frequency_s=30 if gather is None else _gather_frequency(gather),
        gpu_job_mapping_dir=_text(store.get("gpujobmappingdir")))


def _text(tok: Token | None) -> str | None:
    return tok.value if tok is not None and tok.value else None


def _minutes_or_unlimited(tok: Token) -> int:
    if tok.value.upper() in ("UNLIMITED", "INFINITE"):
        return UNLIMITED
    return tok.as_int(0, MAX_OVER_TIME_LIMIT)


def _items(tok: Token) -> list[tuple[str, str, str]]:
    """A comma list's items as (name lower-cased, "=" or "", value)."""
    items = []
    for item in filter(None, (part.strip() for part in tok.value.split(","))):
        name, sep, value = item.partition("=")
        items.append((name.strip().lower(), sep, value.strip()))
    return items


def _cred_expire(tok: Token | None) -> int:
    """AuthInfo's cred_expire=N (the other AuthInfo items are client_settings.auth_info's)."""
    if tok is None:
        return DEFAULT_CRED_EXPIRE
    seconds = DEFAULT_CRED_EXPIRE
    for name, _, value in _items(tok):
        if name == "cred_expire":
            seconds = Token(f"{tok.key} cred_expire", value, tok.path, tok.line).as_int(0)
    return seconds


def _gather_frequency(tok: Token) -> int:
    """`JobAcctGatherFrequency=30` or `task=30,energy=60`: the task interval (default 30)."""
    seconds = 30
    for name, sep, value in _items(tok):
        if not sep:                        # a bare number is the task interval
            name, value = "task", name
        if name not in GATHER_TYPES:
            raise tok.error(f"invalid {tok.key} value {tok.value!r}: expected N or "
                            f"{'=N,'.join(GATHER_TYPES)}=N items")
        number = Token(f"{tok.key} {name}", value, tok.path, tok.line).as_int(0, UINT16_MAX)
        if name == "task":
            seconds = number
    return seconds
