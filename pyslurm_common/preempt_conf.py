"""Preemption settings of slurm.conf: PreemptType, PreemptMode, PreemptExemptTime, and the
partitions' PreemptMode and GraceTime (spec config-slurm-conf.md, scheduling-policy.md §6).

Parsed once with the rest of slurm.conf, so a bad value is a configuration error with its
file and line; the controller's preemption code reads only these objects.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .conf_syntax import Token
from .units import UNLIMITED, parse_time_seconds


class PreemptMode(StrEnum):
    """What happens to a preempted job (the base mode; GANG and WITHIN are flags beside it)."""

    OFF = "OFF"
    CANCEL = "CANCEL"
    REQUEUE = "REQUEUE"
    SUSPEND = "SUSPEND"


PREEMPT_TYPES = ("preempt/none", "preempt/partition_prio", "preempt/qos")
_BASE_MODES = {m.value for m in PreemptMode}
_FLAGS = {"GANG", "WITHIN"}


@dataclass(frozen=True, slots=True)
class ModeSpec:
    """A PreemptMode value: the base mode and the flags written with it."""

    mode: PreemptMode = PreemptMode.OFF
    gang: bool = False
    within: bool = False

    def __str__(self) -> str:
        words = [] if self.mode is PreemptMode.OFF and (self.gang or self.within) else [self.mode.value]
        return ",".join(words + ["GANG"] * self.gang + ["WITHIN"] * self.within)


@dataclass(frozen=True, slots=True)
class PreemptConfig:
    preempt_type: str = "preempt/none"
    mode: ModeSpec = ModeSpec()
    exempt_time: int = UNLIMITED      # seconds a job runs before it may be preempted; -1 none

    @property
    def enabled(self) -> bool:
        return self.preempt_type != "preempt/none"


def parse_mode(tok: Token) -> ModeSpec:
    """`PreemptMode=` of slurm.conf or of a partition: a base mode plus GANG / WITHIN."""
    words = [w.strip().upper() for w in tok.value.split(",") if w.strip()]
    bases = [w for w in words if w in _BASE_MODES]
    unknown = [w for w in words if w not in _BASE_MODES and w not in _FLAGS]
    if unknown or len(bases) > 1 or not words:
        raise tok.error(f"invalid {tok.key} value {tok.value!r}: expected one of OFF, CANCEL, REQUEUE, "
                        "SUSPEND, optionally with GANG or WITHIN")
    if "GANG" in words and "WITHIN" in words:   # Slurm 22.05.8: "PreemptMode=GANG,WITHIN invalid"
        raise tok.error(f"{tok.key}={tok.value} invalid: GANG and WITHIN do not go together")
    return ModeSpec(PreemptMode(bases[0]) if bases else PreemptMode.OFF, "GANG" in words, "WITHIN" in words)


def parse_seconds(tok: Token) -> int:
    try:
        return parse_time_seconds(tok.value)
    except ValueError:
        raise tok.error(f"invalid {tok.key} value {tok.value!r}: expected a time such as 30, 0:30 or "
                        "1:00:00") from None


def parse_grace_time(tok: Token) -> int:
    """A partition's GraceTime: seconds (Slurm reads this one as plain seconds)."""
    return tok.as_int(0)


def preempt_config(type_tok: Token | None, mode_tok: Token | None, exempt_tok: Token | None) -> PreemptConfig:
    """The global settings. SUSPEND needs GANG beside it, as Slurm requires."""
    preempt_type = "preempt/none"
    if type_tok is not None:
        preempt_type = type_tok.value.strip().lower()
        if preempt_type not in PREEMPT_TYPES:
            raise type_tok.error(f"invalid PreemptType value {type_tok.value!r}: expected one of "
                                 + ", ".join(PREEMPT_TYPES))
    mode = parse_mode(mode_tok) if mode_tok is not None else ModeSpec()
    if mode.mode is PreemptMode.SUSPEND and not mode.gang:
        assert mode_tok is not None
        raise mode_tok.error("PreemptMode=SUSPEND requires GANG too (PreemptMode=SUSPEND,GANG)")
    exempt = parse_seconds(exempt_tok) if exempt_tok is not None else UNLIMITED
    return PreemptConfig(preempt_type, mode, exempt)
