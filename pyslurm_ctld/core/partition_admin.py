"""scontrol create/update/delete partition: an administrator's changes to partitions, kept on
top of slurm.conf.

The changes to one partition are recorded as a whole (`PartitionEdited`: created or not,
deleted or not, the Key=Value settings given so far, later ones winning) and journaled, so
they survive restarts and take effect again over whatever slurm.conf says after a
`scontrol reconfigure`: a partition updated here keeps the keys set here, one deleted here
stays deleted until created again, one created here exists beside slurm.conf's. The table of
partitions is always computed from the configuration and these records (`partition_table`),
with the same parser as slurm.conf lines. Pure: no I/O, no clock.
"""
from __future__ import annotations

import dataclasses
import logging
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path

from pyslurm_common.conf_records import PartitionConfig, parse_partition_line
from pyslurm_common.config import ConfigError, SlurmConfig
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.hostlist import HostlistError, expand

from ..model.events import PartitionEdited

log = logging.getLogger(__name__)
ORIGIN = Path("scontrol")

# What `scontrol create/update partition` may set: key (lower case) -> (slurm.conf spelling, the
# PartitionConfig fields it decides). An update changes those fields only, so whatever else
# slurm.conf says about the partition stays as it is.
SETTABLE: dict[str, tuple[str, tuple[str, ...]]] = {
    "nodes": ("Nodes", ("nodes", "node_expr", "takes_all", "node_features")), "state": ("State", ("state",)),
    "maxtime": ("MaxTime", ("max_time_min",)), "defaulttime": ("DefaultTime", ("default_time_min",)),
    "default": ("Default", ("is_default",)), "maxnodes": ("MaxNodes", ("max_nodes",)),
    "minnodes": ("MinNodes", ("min_nodes",)), "prioritytier": ("PriorityTier", ("priority_tier",)),
    "priorityjobfactor": ("PriorityJobFactor", ("priority_job_factor",)),
    "priority": ("Priority", ("priority_tier", "priority_job_factor")),
    "oversubscribe": ("OverSubscribe", ("over_subscribe",)), "shared": ("OverSubscribe", ("over_subscribe",)),
    "defmempercpu": ("DefMemPerCPU", ("def_mem_per_cpu_mb",)),
    "maxmempernode": ("MaxMemPerNode", ("max_mem_per_node_mb",)),
}


def settings_from_words(words: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """`Key=Value` words (not PartitionName=) as (slurm.conf key, value); SlurmError for
    anything else, in Slurm's words."""
    settings = []
    for word in words:
        key, sep, value = word.partition("=")
        if not sep:
            raise SlurmError(Strerror.INVALID_ARGUMENT, f"Invalid input: {word}  Request aborted")
        known = SETTABLE.get(key.lower())
        if known is None:
            raise SlurmError(Strerror.INVALID_ARGUMENT,
                             f"Update of this parameter is not supported: {word}\nRequest aborted")
        settings.append((known[0], value))
    return tuple(settings)


def partition_table(cfg: SlurmConfig, edits: Mapping[str, PartitionEdited],
                    node_names: Collection[str]) -> dict[str, PartitionConfig]:
    """slurm.conf's partitions with the recorded edits applied (in the order they were made:
    a later Default=YES takes the default from the others). An edit that no longer applies
    (a node it names left slurm.conf) is logged and left out."""
    parts = {p.name: p for p in cfg.partitions}
    newest_default = None
    for name, edit in edits.items():
        try:
            part = edited_partition(cfg, edit, node_names)
        except ConfigError as exc:
            log.warning("partition %s: scontrol change no longer applies, ignored: %s", name, exc.message)
            continue
        if part is None:
            parts.pop(name, None)
            continue
        parts[name] = part
        if part.is_default:
            newest_default = name
    if newest_default is not None:
        parts = {n: dataclasses.replace(p, is_default=(n == newest_default)) for n, p in parts.items()}
    return parts


def edited_partition(cfg: SlurmConfig, edit: PartitionEdited, node_names: Collection[str]) -> PartitionConfig | None:
    """The partition `edit` makes of slurm.conf's (None: there is none). Raises ConfigError."""
    base = next((p for p in cfg.partitions if p.name == edit.name), None)
    if edit.deleted or (base is None and not edit.created):
        return None
    written = " ".join(f"{key}={_quoted(value)}" for key, value in edit.settings)
    given = parse_partition_line(f"PartitionName={edit.name} {written}", ORIGIN, cfg, node_names)
    if base is None:
        return given
    fields = {name for key, _ in edit.settings for name in SETTABLE[key.lower()][1]}
    return dataclasses.replace(base, **{name: getattr(given, name) for name in fields})


def edit(action: str, name: str, settings: tuple[tuple[str, str], ...], cfg: SlurmConfig,
         edits: Mapping[str, PartitionEdited], current: Mapping[str, PartitionConfig],
         node_names: Collection[str], jobs_in: Mapping[str, Collection[int]]) -> PartitionEdited:
    """The record after `action` (create, update, delete) on partition `name`, checked by
    building the whole table with it. `jobs_in`: partition -> its pending or running jobs.

    Raises SlurmError with Slurm's reason: an unknown partition, one that exists already, one
    still in use (delete), a node that does not exist, a value slurm.conf would refuse.
    """
    if not name or name.upper() == "DEFAULT":
        raise SlurmError(Strerror.INVALID_ARGUMENT, 'PartitionName cannot be "DEFAULT".' if name else
                         "PartitionName must be given.")
    known = edits.get(name)
    if action == "create":
        if name in current:   # Slurm's answer to a duplicate name
            raise SlurmError(Strerror.INVALID_PARTITION)
        record = PartitionEdited(name, created=True, deleted=False, settings=settings)
    elif name not in current:
        raise SlurmError(Strerror.INVALID_PARTITION)
    elif action == "delete":
        if jobs_in.get(name):
            raise SlurmError(Strerror.PARTITION_IN_USE)
        record = PartitionEdited(name, created=False, deleted=True, settings=())
    else:
        record = PartitionEdited(name, created=known.created if known else False, deleted=False,
                                 settings=(known.settings if known else ()) + settings)
    _check_nodes(record.settings, node_names)
    try:
        edited_partition(cfg, record, node_names)
    except ConfigError as exc:
        raise SlurmError(Strerror.INVALID_ARGUMENT, exc.message) from exc
    return record


def _check_nodes(settings: tuple[tuple[str, str], ...], node_names: Collection[str]) -> None:
    for key, value in settings:
        if key != "Nodes" or value.upper() == "ALL" or not value:
            continue
        try:
            names = expand(value)
        except HostlistError as exc:
            raise SlurmError(Strerror.INVALID_NODE_NAME, str(exc)) from exc
        unknown = [n for n in names if n not in node_names]
        if unknown:
            raise SlurmError(Strerror.INVALID_NODE_NAME, f"Invalid node name specified: {unknown[0]}")


def _quoted(value: str) -> str:
    return f'"{value}"' if any(c.isspace() for c in value) else value
