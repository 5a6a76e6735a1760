"""Event triggers (strigger): what a trigger watches, the program it runs, and whose it is.

Slurm 22.05's triggers (trigger_mgr.c), as far as pyslurm has the events: a job's end (fini), its
time limit coming (time, with a negative offset to run before it), its nodes going down, up or
failing; a node (or any node, "*") going DOWN, returning to service (up), DRAINED, FAILING, IDLE
for at least `offset` seconds; and the configuration changing (reconfig). A trigger fires once and
is gone, unless it is PERM(anent). The program runs as the user who set the trigger, with the
job id or the names of the nodes concerned as its last argument.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

JOB, NODE = "job", "node"
# The event words in the order of Slurm's TRIGGER_TYPE_* bits; a trigger's are kept in this order.
# Either resource type may name any of them, as Slurm lets it; a job's trigger acts on fini, time,
# down, up and fail (its nodes'), a node's on down, up, drained, fail, idle and reconfig.
EVENTS = ("up", "down", "fail", "time", "fini", "reconfig", "idle", "drained")
ANY_NODE = "*"


@dataclass(frozen=True, slots=True)
class Trigger:
    trig_id: int
    res_type: str           # JOB or NODE
    res_id: str             # the job id, a node hostlist, or ANY_NODE
    events: tuple[str, ...]
    offset: int             # seconds after the event (before it, when negative: --time)
    uid: int                # who set it: the program runs as this user
    gid: int
    program: str            # the absolute path, then any arguments, split on spaces as Slurm does
    perm: bool = False      # --flags=PERM: kept after it fired

    @property
    def type_word(self) -> str:
        """strigger's TYPE column: one event's word; Slurm's trigger_type() knows no combination."""
        return self.events[0] if len(self.events) == 1 else "unknown"

    def same_as(self, other: "Trigger") -> bool:
        """Slurm's _duplicate_trigger: all but the id alike."""
        return (self.res_type, self.res_id, self.events, self.offset, self.uid, self.program, self.perm) == (
            other.res_type, other.res_id, other.events, other.offset, other.uid, other.program, other.perm)

    def argv(self, argument: str) -> list[str]:
        """The program's argv as slurmctld builds it: the path's last part, the words after it,
        then `argument` (the job id or the nodes)."""
        path, *words = self.program.split()
        return [path.rsplit("/", 1)[-1], *words[:62], argument]

    @property
    def path(self) -> str:
        return self.program.split()[0]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Trigger":
        return cls(**{**data, "events": tuple(data["events"])})
