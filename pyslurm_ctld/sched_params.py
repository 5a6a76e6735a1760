"""The `SchedulerParameters` and `DependencyParameters` options the controller acts on.

Both are comma lists of `name` or `name=value` items (config-slurm-conf.md). Parsed once,
when the job manager is built; options we do not act on are ignored, as Slurm ignores
unknown ones. Errors: `ConfigError` for a number that does not parse (fatal at start).
"""
from __future__ import annotations

from dataclasses import dataclass

from pyslurm_common.config import ConfigError, SlurmConfig


@dataclass(frozen=True, slots=True)
class SchedulingOptions:
    max_array_tasks: int          # most tasks one array may have (max_array_tasks, default MaxArraySize)
    kill_invalid_depend: bool     # cancel jobs whose dependency can never be satisfied


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
    max_tasks = cfg.max_array_size
    if "max_array_tasks" in sched:
        text = sched["max_array_tasks"]
        if not text.isdigit():
            raise ConfigError(f"{cfg.path}: SchedulerParameters: invalid max_array_tasks={text}")
        max_tasks = int(text)
    # kill_invalid_depend moved from SchedulerParameters to DependencyParameters; both count.
    return SchedulingOptions(max_array_tasks=max_tasks,
                             kill_invalid_depend="kill_invalid_depend" in sched or "kill_invalid_depend" in depend)
