"""The slurm.conf keys of job priority and fairshare, parsed once into one immutable object.

Keys (spec config-slurm-conf.md): PriorityType (priority/basic, Slurm 22.05's default, or
priority/multifactor), PriorityWeight{Age,Assoc,Fairshare,JobSize,Partition,QOS} (integers,
default 0), PriorityWeightTRES (`CPU=1000,Mem=2000,GRES/gpu=3000`), PriorityMaxAge and
PriorityDecayHalfLife (time strings, default 7-0; half-life 0 = no decay), PriorityCalcPeriod
(minutes, default 5), PriorityFavorSmall, PriorityFlags, PriorityUsageResetPeriod and
FairShareDampeningFactor. Unknown PriorityFlags are ignored, as Slurm ignores them.

Errors: `ConfigError` naming the file, line and key for a value that does not parse (fatal at
start, refused at reconfigure: reconfigure.load_checked parses them with the rest of slurm.conf).
"""
from __future__ import annotations

from dataclasses import dataclass

from pyslurm_common.bounds import COUNT
from pyslurm_common.config import ConfigError, SlurmConfig
from pyslurm_common.units import UNLIMITED, parse_time_limit

BASIC = "priority/basic"
MULTIFACTOR = "priority/multifactor"
RESET_PERIODS = ("NONE", "NOW", "DAILY", "WEEKLY", "MONTHLY", "QUARTERLY", "YEARLY")
_WEEK_MINUTES = 7 * 24 * 60


@dataclass(frozen=True, slots=True)
class PrioritySettings:
    priority_type: str = BASIC
    weight_age: int = 0
    weight_assoc: int = 0
    weight_fairshare: int = 0
    weight_job_size: int = 0
    weight_partition: int = 0
    weight_qos: int = 0
    weight_tres: tuple[tuple[str, float], ...] = ()   # (TRES name lower-cased: cpu, mem, node, gres/gpu)
    weight_tres_text: str = ""                        # as written, for sprio -w
    max_age_s: int = _WEEK_MINUTES * 60
    decay_half_life_s: int = _WEEK_MINUTES * 60       # 0: no decay
    calc_period_s: int = 5 * 60
    favor_small: bool = False
    flags: frozenset[str] = frozenset()               # upper-cased PriorityFlags
    usage_reset_period: str = "NONE"
    dampening_factor: int = 1

    @property
    def multifactor(self) -> bool:
        return self.priority_type == MULTIFACTOR

    @property
    def fair_tree(self) -> bool:
        return "NO_FAIR_TREE" not in self.flags


def priority_settings(cfg: SlurmConfig) -> PrioritySettings:
    def fail(key: str, value: str, expected: str) -> ConfigError:
        return cfg.config_error(key, f"invalid {key} value {value!r}: {expected}")

    def integer(key: str, default: int, minimum: int = 0) -> int:
        text = cfg.value(key)
        if text is None:
            return default
        if not COUNT.accepts(text) or int(text) < minimum:
            raise fail(key, text, f"expected an integer >= {minimum}")
        return int(text)

    def seconds(key: str, default_s: int, zero_allowed: bool) -> int:
        text = cfg.value(key)
        if text is None:
            return default_s
        if zero_allowed and text.strip() in ("0", "00:00:00"):
            return 0
        try:
            minutes = parse_time_limit(text)
        except ValueError:
            raise fail(key, text, "expected a time such as 7-0 or 60") from None
        if minutes == UNLIMITED:
            raise fail(key, text, "expected a finite time")
        return minutes * 60

    kind = (cfg.value("PriorityType") or BASIC).strip().lower()
    if kind not in (BASIC, MULTIFACTOR):
        raise fail("PriorityType", kind, f"expected {BASIC} or {MULTIFACTOR}")
    reset = (cfg.value("PriorityUsageResetPeriod") or "NONE").strip().upper()
    if reset not in RESET_PERIODS:
        raise fail("PriorityUsageResetPeriod", reset, f"expected one of {', '.join(RESET_PERIODS)}")
    favor = (cfg.value("PriorityFavorSmall") or "NO").strip().upper()
    if favor not in ("YES", "NO"):
        raise fail("PriorityFavorSmall", favor, "expected YES or NO")
    tres_text = (cfg.value("PriorityWeightTRES") or "").strip()
    return PrioritySettings(
        priority_type=kind,
        weight_age=integer("PriorityWeightAge", 0),
        weight_assoc=integer("PriorityWeightAssoc", 0),
        weight_fairshare=integer("PriorityWeightFairshare", 0),
        weight_job_size=integer("PriorityWeightJobSize", 0),
        weight_partition=integer("PriorityWeightPartition", 0),
        weight_qos=integer("PriorityWeightQOS", 0),
        weight_tres=_tres_weights(tres_text, cfg),
        weight_tres_text=tres_text,
        max_age_s=seconds("PriorityMaxAge", _WEEK_MINUTES * 60, zero_allowed=True),
        decay_half_life_s=seconds("PriorityDecayHalfLife", _WEEK_MINUTES * 60, zero_allowed=True),
        calc_period_s=max(60, seconds("PriorityCalcPeriod", 5 * 60, zero_allowed=False)),
        favor_small=favor == "YES",
        flags=frozenset(f.strip().upper() for f in (cfg.value("PriorityFlags") or "").split(",") if f.strip()),
        usage_reset_period=reset,
        dampening_factor=integer("FairShareDampeningFactor", 1, minimum=1),
    )


def _tres_weights(text: str, cfg: SlurmConfig) -> tuple[tuple[str, float], ...]:
    weights: list[tuple[str, float]] = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, equals, value = item.partition("=")
        try:
            weight = float(value)
        except ValueError:
            weight = -1.0
        if not equals or not name or weight < 0:
            raise cfg.config_error("PriorityWeightTRES", f"invalid PriorityWeightTRES value {text!r}: "
                                                         "expected TRES=weight pairs such as CPU=1000,Mem=2000")
        weights.append((name.strip().lower(), weight))
    return tuple(weights)
