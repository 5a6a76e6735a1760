"""Job dependencies (`--dependency`): the syntax, the record a job keeps, and how a part resolves.

Spec: cli-sbatch-srun-salloc.md §2.5 and scheduling-policy.md §8. A dependency is a list of
parts joined all by `,` (AND) or all by `?` (OR); `type:id[:id...]` gives one part per id
(`after:id+M` waits M minutes after the start). Each part is unfulfilled, fulfilled or
failed; once fulfilled or failed it stays so (a requeued, then successful job does not
revive a failed afterok). Parts change when the jobs they name change (the core calls
`resolve` then, so replaying the journal gives the same parts); `singleton` depends on the
other jobs of the user at scheduling time and is left to the scheduler's eligibility check.

Pure. Errors: `ValueError` from `parse` (the controller answers "Job dependency problem").
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Callable, Iterable

from pyslurm_common.bounds import ARRAY_INDEX, COUNT, JOB_ID


class DepType(StrEnum):
    AFTER = "after"
    AFTERANY = "afterany"
    AFTEROK = "afterok"
    AFTERNOTOK = "afternotok"
    AFTERCORR = "aftercorr"
    SINGLETON = "singleton"


class PartState(StrEnum):
    UNFULFILLED = "unfulfilled"
    FULFILLED = "fulfilled"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class DepPart:
    kind: DepType
    job_id: int = 0                 # 0 for singleton
    task_id: int | None = None      # `123_4`: one task of array 123
    delay_min: int = 0              # after:id+M
    whole_array: bool = False       # the id names an array: every task counts (shown `123_*`)
    state: PartState = PartState.UNFULFILLED
    ready_at: int = 0               # after+M: fulfilled from this time on

    def text(self) -> str:
        if self.kind is DepType.SINGLETON:
            return "singleton"
        target = f"{self.job_id}_{self.task_id}" if self.task_id is not None else str(self.job_id)
        if self.whole_array:
            target += "_*"
        delay = f"+{self.delay_min}" if self.delay_min else ""
        return f"{self.kind}:{target}{delay}"


@dataclass(frozen=True, slots=True)
class Dependency:
    parts: tuple[DepPart, ...]
    any_of: bool = False            # joined by `?`

    def outcome(self, now: int, singleton_free: bool) -> PartState:
        """Fulfilled, failed (can never be), or still unfulfilled, at `now`."""
        states = [_state_at(part, now, singleton_free) for part in self.parts]
        if self.any_of:
            if PartState.FULFILLED in states:
                return PartState.FULFILLED
            return PartState.FAILED if all(s is PartState.FAILED for s in states) else PartState.UNFULFILLED
        if PartState.FAILED in states:
            return PartState.FAILED
        return PartState.FULFILLED if all(s is PartState.FULFILLED for s in states) else PartState.UNFULFILLED

    def remaining_text(self, now: int, singleton_free: bool) -> str:
        """squeue %E / scontrol `Dependency=`: the parts not fulfilled, with their state; "" if none
        (or, joined by `?`, once one is: Slurm clears the whole dependency then)."""
        if self.any_of and self.outcome(now, singleton_free) is PartState.FULFILLED:
            return ""
        sep = "?" if self.any_of else ","
        return sep.join(f"{part.text()}({state})" for part in self.parts
                        if (state := _state_at(part, now, singleton_free)) is not PartState.FULFILLED)

    def targets(self) -> set[int]:
        return {part.job_id for part in self.parts if part.job_id}

    @property
    def has_singleton(self) -> bool:
        return any(part.kind is DepType.SINGLETON for part in self.parts)

    def split_corr(self) -> tuple["Dependency | None", tuple[DepPart, ...]]:
        """(the other parts, the aftercorr parts): an array's aftercorr is decided per task index."""
        corr = tuple(p for p in self.parts if p.kind is DepType.AFTERCORR)
        rest = tuple(p for p in self.parts if p.kind is not DepType.AFTERCORR)
        return (replace(self, parts=rest) if rest else None), corr

    def corr_failed(self) -> "Dependency":
        """The aftercorr parts failed (every index left waits on a counterpart that failed)."""
        return replace(self, parts=tuple(replace(p, state=PartState.FAILED) if p.kind is DepType.AFTERCORR else p
                                         for p in self.parts))

    def same_parts(self, other: "Dependency") -> bool:
        """Whether `other` names the same parts (whatever their states)."""
        return self.any_of == other.any_of and [p.text() for p in self.parts] == [p.text() for p in other.parts]

    def resolve(self, outcome: Callable[[DepPart], tuple[PartState, int]]) -> "Dependency":
        """Settle the unfulfilled parts that `outcome` (state, ready_at) can now decide."""
        parts = []
        for part in self.parts:
            if part.state is PartState.UNFULFILLED and part.kind is not DepType.SINGLETON:
                state, ready_at = outcome(part)
                part = replace(part, state=state, ready_at=ready_at)
            parts.append(part)
        return replace(self, parts=tuple(parts))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Dependency":
        parts = tuple(DepPart(**{**p, "kind": DepType(p["kind"]), "state": PartState(p["state"])})
                      for p in data["parts"])
        return cls(parts=parts, any_of=data["any_of"])


def _state_at(part: DepPart, now: int, singleton_free: bool) -> PartState:
    if part.kind is DepType.SINGLETON:
        return PartState.FULFILLED if singleton_free else PartState.UNFULFILLED
    if part.state is PartState.FULFILLED and now < part.ready_at:
        return PartState.UNFULFILLED
    return part.state


_ID = re.compile(r"^(\d+)(?:_(\d+))?(?:\+(\d+))?$")


def parse(text: str) -> Dependency:
    """`afterok:12:13,after:14+5` / `afterany:1?afternotok:2` / `singleton` -> Dependency."""
    if "," in text and "?" in text:
        raise ValueError(text)
    any_of = "?" in text
    parts: list[DepPart] = []
    for item in text.split("?" if any_of else ","):
        parts.extend(_parse_item(item.strip()))
    if not parts:
        raise ValueError(text)
    return Dependency(tuple(parts), any_of)


def _parse_item(item: str) -> Iterable[DepPart]:
    if item.lower() == DepType.SINGLETON:
        return [DepPart(DepType.SINGLETON)]
    kind_text, sep, ids = item.partition(":")
    if not sep:                                   # a bare id: afterany
        kind_text, ids = DepType.AFTERANY, item
    try:
        kind = DepType(kind_text.lower())
    except ValueError:
        raise ValueError(item) from None
    if kind is DepType.SINGLETON or not ids:
        raise ValueError(item)
    parts = []
    for text in ids.split(":"):
        match = _ID.match(text)
        if not match or (match.group(3) and kind is not DepType.AFTER):
            raise ValueError(item)
        task = ARRAY_INDEX.parse(match.group(2)) if match.group(2) is not None else None
        parts.append(DepPart(kind, JOB_ID.parse(match.group(1)), task, COUNT.parse(match.group(3) or "0")))
    return parts


@dataclass(frozen=True, slots=True)
class TargetView:
    """What a part needs to know about the job(s) it names (a job, one array task, or a whole array)."""

    exists: bool
    all_started: bool        # every job started (or ended without starting)
    last_start: int          # latest start among them (after+M counts from the last to start)
    all_done: bool           # every job ended and finished cleaning up
    any_failed: bool         # some ended other than COMPLETED with exit 0


def part_outcome(part: DepPart, target: TargetView) -> tuple[PartState, int]:
    """(state, ready_at) of an unfulfilled part, given its target now. A job that is gone
    (purged) lifts the dependency, as Slurm does."""
    if not target.exists:
        return PartState.FULFILLED, 0
    kind = part.kind
    if kind is DepType.AFTER:
        if not target.all_started:
            return PartState.UNFULFILLED, 0
        return PartState.FULFILLED, target.last_start + part.delay_min * 60
    if not target.all_done:
        return PartState.UNFULFILLED, 0
    if kind is DepType.AFTERANY:
        return PartState.FULFILLED, 0
    if kind in (DepType.AFTEROK, DepType.AFTERCORR):
        return (PartState.FAILED if target.any_failed else PartState.FULFILLED), 0
    return (PartState.FULFILLED if target.any_failed else PartState.FAILED), 0   # afternotok
