"""cgroup.conf, parsed once into a typed immutable :class:`CgroupConfig`, and the memory math.

This module owns which cgroup.conf keys exist and what they mean (spec config-slurm-conf.md §7)
and turning an allocation into cgroup memory limits (:func:`memory_limits`, spec
daemons-and-cgroups.md §4.1).  The line syntax is :mod:`pyslurm_common.conf_syntax`; the file
lives beside slurm.conf (:func:`cgroup_conf_path`).

Errors: a missing file is not an error (every key has a default).  An invalid value raises
:class:`ConfigError` (``<file>:<line>: <message naming the key>``), fatal for a daemon at start.
Unknown keys, and keys pyslurm accepts but does not act on, are only warned about with file:line.
Stdlib only: stepd may import this.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pyslurm_common.conf_syntax import ConfigError, Token, read_conf

__all__ = ["CgroupConfig", "ConfigError", "cgroup_conf_path", "load_cgroup_config", "memory_limits"]

_log = logging.getLogger(__name__)

MB = 1024 * 1024

CGROUP_PLUGINS = frozenset({"autodetect", "cgroup/v1", "cgroup/v2", "disabled"})

# Keys Slurm knows that change nothing in pyslurm (v1 kmem, systemd scope handling, mount tuning).
_IGNORED_KEYS = {k.lower(): k for k in (
    "CgroupMountpoint CgroupAutomount CgroupReleaseAgentDir MemorySwappiness ConstrainKmemSpace "
    "AllowedKmemSpace MaxKmemPercent MinKmemSpace IgnoreSystemd IgnoreSystemdOnFailure "
    "EnableControllers SystemdTimeout SignalChildrenProcesses AllowedDevicesFile TaskAffinity"
).split()}


@dataclass(frozen=True, slots=True)
class CgroupConfig:
    """The keys of cgroup.conf that pyslurm acts on; defaults are Slurm's.

    ``cgroup_plugin`` is lower-case: ``autodetect``, ``cgroup/v1``, ``cgroup/v2`` or ``disabled``.
    Percentages are plain numbers (``AllowedRAMSpace=95`` → ``95.0``).
    """

    cgroup_plugin: str = "autodetect"
    constrain_cores: bool = False
    constrain_ram_space: bool = False
    allowed_ram_space: float = 100.0
    constrain_swap_space: bool = False
    allowed_swap_space: float = 0.0
    max_ram_percent: float = 100.0
    max_swap_percent: float = 100.0
    min_ram_space_mb: int = 30
    constrain_devices: bool = False


def cgroup_conf_path(slurm_conf: Path) -> Path:
    """cgroup.conf is always read from slurm.conf's directory."""
    return slurm_conf.parent / "cgroup.conf"


def _percent(tok: Token, maximum: float | None) -> float:
    text = tok.value[:-1] if tok.value.endswith("%") else tok.value
    try:
        value = float(text)
    except ValueError:
        raise tok.error(f"invalid {tok.key} value {tok.value!r}: expected a percentage") from None
    if not math.isfinite(value) or value < 0 or (maximum is not None and value > maximum):
        bounds = ">= 0" if maximum is None else f"between 0 and {maximum:g}"
        raise tok.error(f"invalid {tok.key} value {tok.value!r}: must be {bounds}")
    return value


def _plugin(tok: Token) -> str:
    word = tok.value.lower()
    if word not in CGROUP_PLUGINS:
        raise tok.error(f"invalid {tok.key} value {tok.value!r}: expected one of {', '.join(sorted(CGROUP_PLUGINS))}")
    return word


# lower-case key → (dataclass field, converter)
_KEYS: dict[str, tuple[str, Callable[[Token], object]]] = {
    "cgroupplugin": ("cgroup_plugin", _plugin),
    "constraincores": ("constrain_cores", Token.as_bool),
    "constrainramspace": ("constrain_ram_space", Token.as_bool),
    "allowedramspace": ("allowed_ram_space", lambda t: _percent(t, None)),
    "constrainswapspace": ("constrain_swap_space", Token.as_bool),
    "allowedswapspace": ("allowed_swap_space", lambda t: _percent(t, None)),
    "maxrampercent": ("max_ram_percent", lambda t: _percent(t, 100.0)),
    "maxswappercent": ("max_swap_percent", lambda t: _percent(t, 100.0)),
    "minramspace": ("min_ram_space_mb", Token.as_memory_mb),
    "constraindevices": ("constrain_devices", Token.as_bool),
}


def load_cgroup_config(path: Path) -> CgroupConfig:
    """Read cgroup.conf (and its Includes); a missing file means all defaults.

    Duplicate keys: the last one wins, as in Slurm.
    """
    if not path.exists():
        _log.debug("%s not found: cgroup.conf defaults apply", path)
        return CgroupConfig()
    values: dict[str, object] = {}
    for tokens in read_conf(path):
        for tok in tokens:
            entry = _KEYS.get(tok.lower)
            if entry is not None:
                name, convert = entry
                values[name] = convert(tok)
            elif tok.lower in _IGNORED_KEYS:
                _log.warning("%s: %s is not supported by pyslurm and is ignored (cgroup.conf)", tok.where, tok.key)
            else:
                _log.warning("%s", tok.unrecognized())
    return CgroupConfig(**values)  # type: ignore[arg-type]


def _percent_bytes(mb: float, percent: float) -> int:
    return int(mb * MB * percent / 100.0)


def memory_limits(cfg: CgroupConfig, allocated_mb: int, node_real_memory_mb: int) -> tuple[int | None, int | None]:
    """(hard RAM limit, RAM+swap limit) in bytes for an allocation of ``allocated_mb``.

    * RAM (ConstrainRAMSpace): ``allocated × AllowedRAMSpace%``, raised to MinRAMSpace, then
      capped at ``node × MaxRAMPercent%`` (MinRAMSpace wins over the cap).
    * RAM+swap (ConstrainSwapSpace): the RAM limit (computed as above even when RAM itself is
      not constrained) plus ``allocated × AllowedSwapSpace%``, raised to MinRAMSpace, capped at
      ``node × MaxRAMPercent% + node × MaxSwapPercent%``, and never below the RAM limit.

    Each is None when its Constrain* key is off; both are None for ``allocated_mb <= 0`` (no
    memory in the allocation: pyslurm then sets no limit).  ``node_real_memory_mb`` should be the
    node's physical memory; ``<= 0`` means unknown and disables the caps.
    """
    if allocated_mb <= 0 or not (cfg.constrain_ram_space or cfg.constrain_swap_space):
        return None, None
    floor = cfg.min_ram_space_mb * MB
    known = node_real_memory_mb > 0
    max_ram = _percent_bytes(node_real_memory_mb, cfg.max_ram_percent) if known else None
    ram = _clamp(_percent_bytes(allocated_mb, cfg.allowed_ram_space), floor, max_ram)
    hard = ram if cfg.constrain_ram_space else None
    if not cfg.constrain_swap_space:
        return hard, None
    max_swap = None if max_ram is None else max_ram + _percent_bytes(node_real_memory_mb, cfg.max_swap_percent)
    total = _clamp(ram + _percent_bytes(allocated_mb, cfg.allowed_swap_space), floor, max_swap)
    return hard, max(total, ram)


def _clamp(value: int, floor: int, cap: int | None) -> int:
    """Cap, then floor: MinRAMSpace guards against a limit too small to start anything."""
    if cap is not None:
        value = min(value, cap)
    return max(value, floor)
