"""slurm.conf's `GpuIdleParameters` parsed once per configuration read (the policy itself is
decided in core/gpu_idle.py; its syntax is documented there).
"""
from __future__ import annotations

from dataclasses import dataclass

from pyslurm_common.config import SlurmConfig

DEFAULT_THRESHOLD = 5
MAX_MINUTES = 100 * 365 * 24 * 60


class PolicyError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class IdleGpuPolicy:
    limit_s: int                       # idle this long: the action (0: warn only)
    warn_s: int                        # idle this long: the warning
    threshold: int = DEFAULT_THRESHOLD
    action: str = "cancel"             # or "requeue"
    exempt_partitions: frozenset[str] = frozenset()
    exempt_qos: frozenset[str] = frozenset()
    act_on_interactive: bool = False

    def describe(self) -> str:
        what = f", then {self.action}s at {span(self.limit_s)}" if self.limit_s else ""
        return f"below {self.threshold}% utilisation: warned at {span(self.warn_s)}{what}"


def _minutes(key: str, value: str) -> int:
    """Minutes, or seconds with an `s` suffix (`30`, `90s`), as seconds."""
    number, scale = (value[:-1], 1) if value.endswith("s") else (value, 60)
    if not number.isdigit() or int(number) * scale > MAX_MINUTES * 60:
        raise PolicyError(f"GpuIdleParameters: {key}={value}: expected minutes (or seconds: 90s)")
    return int(number) * scale


def span(seconds: int) -> str:
    """An idle time as the warnings say it: `45 s`, `12 min`."""
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min"


def parse_policy(text: str | None) -> IdleGpuPolicy | None:
    """`GpuIdleParameters=...` -> the policy; None when unset. Raises PolicyError naming the item."""
    if not text:
        return None
    items: dict[str, str] = {}
    for item in (part.strip() for part in text.split(",") if part.strip()):
        key, sep, value = item.partition("=")
        key = key.strip().lower()
        if not sep or key not in ("threshold", "warn", "limit", "action", "exempt_partitions", "exempt_qos",
                                  "interactive") or key in items:
            raise PolicyError(f"GpuIdleParameters: invalid item '{item}'")
        items[key] = value.strip()
    if "limit" not in items:
        raise PolicyError("GpuIdleParameters: limit=<minutes> is required (0: warn only)")
    limit = _minutes("limit", items["limit"])
    warn = _minutes("warn", items["warn"]) if "warn" in items else limit // 2
    threshold = items.get("threshold", str(DEFAULT_THRESHOLD))
    if not threshold.isdigit() or not 1 <= int(threshold) <= 100:
        raise PolicyError(f"GpuIdleParameters: threshold={threshold}: expected a percentage (1-100)")
    action = items.get("action", "cancel").lower()
    interactive = items.get("interactive", "warn").lower()
    if action not in ("cancel", "requeue") or interactive not in ("warn", "act"):
        raise PolicyError("GpuIdleParameters: action is cancel or requeue, interactive is warn or act")
    if not warn or (limit and warn >= limit):
        raise PolicyError("GpuIdleParameters: warn must be more than 0 and less than limit")
    return IdleGpuPolicy(limit, warn, int(threshold), action,
                         frozenset(p for p in items.get("exempt_partitions", "").split(":") if p),
                         frozenset(q.lower() for q in items.get("exempt_qos", "").split(":") if q),
                         interactive == "act")


def load_policy(cfg: SlurmConfig) -> IdleGpuPolicy | None:
    """The policy of a slurm.conf. Raises ConfigError at its file:line for a bad GpuIdleParameters."""
    try:
        return parse_policy(cfg.value("GpuIdleParameters"))
    except PolicyError as exc:
        raise cfg.config_error("GpuIdleParameters", str(exc)) from None
