"""The `SchedulerType`, `SchedulerParameters` and `DependencyParameters` options the controller
acts on.

The parameters are comma lists of `name` or `name=value` items (config-slurm-conf.md §3.1).
Parsed once per file read (policy_settings.py); options we do not act on are ignored, as Slurm
ignores unknown ones. Errors: `ConfigError` at the key's file:line for a number that does not
parse or an unknown SchedulerType (fatal at start: reconfigure.load_checked parses them).
"""
from __future__ import annotations

from dataclasses import dataclass

from pyslurm_common.bounds import UINT32_MAX, Bound
from pyslurm_common.config import SlurmConfig

SCHEDULER_TYPES = ("sched/backfill", "sched/builtin")
DEFAULT_MAX_SCRIPT_SIZE = 4 * 1024 * 1024      # Slurm's DEFAULT_BATCH_SCRIPT_LIMIT
MAX_SCRIPT_SIZE = 512 * 1024 * 1024            # and MAX_BATCH_SCRIPT_SIZE, the most max_script_size may say


@dataclass(frozen=True, slots=True)
class BackfillPolicy:
    """The SchedulerParameters backfill acts on (config-slurm-conf.md §3.1)."""

    window_s: int = 1440 * 60     # bf_window: how far ahead a job may be reserved
    resolution_s: int = 60        # bf_resolution: ends are rounded up to this grid
    max_job_test: int = 500       # bf_max_job_test: jobs considered per pass


@dataclass(frozen=True, slots=True)
class SchedulingOptions:
    max_array_tasks: int          # most tasks one array may have (max_array_tasks, default MaxArraySize)
    kill_invalid_depend: bool     # cancel jobs whose dependency can never be satisfied
    backfill: BackfillPolicy | None = None   # None: sched/builtin (strict priority per partition only)
    user_top: bool = False        # enable_user_top: users may `scontrol top` their own jobs
    max_script_size: int = DEFAULT_MAX_SCRIPT_SIZE   # max_script_size: the longest batch script taken, bytes
    enforce_part_limits: bool = False   # EnforcePartLimits=ALL|ANY|YES: refuse what the partition can never hold


def _items(text: str | None) -> dict[str, str]:
    items: dict[str, str] = {}
    for item in (text or "").split(","):
        name, _, value = item.strip().partition("=")
        if name:
            items[name.lower()] = value
    return items


def scheduling_options(cfg: SlurmConfig) -> SchedulingOptions:
    sched = _items(cfg.value("SchedulerParameters"))
    depend = _items(cfg.value("DependencyParameters"))

    def number(name: str, default: int, least: int = 0) -> int:
        if name not in sched:
            return default
        text = sched[name]
        if not Bound(name, least, UINT32_MAX).accepts(text):
            raise cfg.config_error("SchedulerParameters", f"SchedulerParameters: invalid {name}={text}")
        return int(text)

    kind = (cfg.value("SchedulerType") or SCHEDULER_TYPES[0]).lower()
    if kind not in SCHEDULER_TYPES:
        raise cfg.config_error("SchedulerType", f"SchedulerType={kind}: not one of {', '.join(SCHEDULER_TYPES)}")
    default = BackfillPolicy()
    # Backfill runs in every pass (see backfill.py); bf_interval=-1 still turns it off.
    backfill = None if kind == "sched/builtin" or number("bf_interval", 30, -1) == -1 else BackfillPolicy(
        window_s=number("bf_window", default.window_s // 60, 1) * 60,
        resolution_s=number("bf_resolution", default.resolution_s, 1),
        max_job_test=number("bf_max_job_test", default.max_job_test, 1))
    # kill_invalid_depend moved from SchedulerParameters to DependencyParameters: Slurm 22.05.8
    # acts on the latter only (a job under SchedulerParameters=kill_invalid_depend stays pending).
    return SchedulingOptions(max_array_tasks=number("max_array_tasks", cfg.max_array_size),
                             kill_invalid_depend="kill_invalid_depend" in depend,
                             backfill=backfill, user_top="enable_user_top" in sched,
                             max_script_size=_script_limit(cfg, number("max_script_size", DEFAULT_MAX_SCRIPT_SIZE)),
                             enforce_part_limits=(cfg.value("EnforcePartLimits") or "NO").strip().upper() != "NO")


def _script_limit(cfg: SlurmConfig, size: int) -> int:
    if size > MAX_SCRIPT_SIZE:      # fatal in Slurm's read_config too
        raise cfg.config_error("SchedulerParameters",
                               f"SchedulerParameters option max_script_size cannot exceed {MAX_SCRIPT_SIZE}")
    return size
