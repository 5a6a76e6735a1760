"""What sinfo's -n, -t, -d, -r and -S choose and order, as Slurm 22.05's sinfo does it
(_filter_out, _node_state_id and sort.c). Pure: records in, records out.

-t takes node state names by any prefix (`i` is idle), base states and flags alike; a list
separated by `,` matches any of them, one separated by `&` all of them. -S keys are sinfo's
format letters, `-` for descending, `#P` the partitions' slurm.conf order.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pyslurm_common.rpc import messages as pb

from . import sinfo_format

# Slurm's node_state_string order (the first prefix match wins), as (long name, compact name).
_BASE_STATES = (("UNKNOWN", "UNK"), ("DOWN", "DOWN"), ("IDLE", "IDLE"), ("ALLOCATED", "ALLOC"),
                ("ERROR", "ERR"), ("MIXED", "MIX"), ("FUTURE", "FUTR"))
# Words Slurm's _node_state_id tries after the base states, in its order: the names a user
# types and what they select (a flag name, or DRAINED/DRAINING for the two drain views).
_STATE_WORDS = (
    (("PLANNED", "PLND"), "PLANNED"), (("DRAIN",), "DRAIN"), (("DRAINED",), "DRAINED"),
    (("RESV", "RESERVED"), "RESERVED"), (("PERFCTRS", "NPC"), "PERFCTRS"),
    (("DRAINING", "DRNG"), "DRAINING"), (("COMPLETING", "COMP"), "COMPLETING"),
    (("NO_RESPOND",), "NOT_RESPONDING"), (("POWERING_DOWN", "POWRING_DOWN"), "POWERING_DOWN"),
    (("POWERED_DOWN", "POWERED_DOWN"), "POWERED_DOWN"), (("POWER_DOWN", "POW_DN"), "POWER_DOWN"),
    (("POWERING_UP", "POW_UP"), "POWERING_UP"), (("FAIL",), "FAIL"), (("MAINT",), "MAINTENANCE"),
    (("REBOOT_REQUESTED", "BOOT^"), "REBOOT_REQUESTED"), (("REBOOT_ISSUED", "BOOT"), "REBOOT_ISSUED"),
    (("CLOUD",), "CLOUD"),
)
VALID_STATES = ("unknown,down,idle,allocated,?,mixed,future,drain,drained,draining,no_respond,reserved,"
                "perfctrs,cloud,completing,powering_down,powered_down,power_down,powering_up,fail,maint,"
                "reboot,reboot^,unknown")
_BUSY = frozenset({"ALLOCATED", "MIXED"})


class StateError(ValueError):
    """A -t word that names no node state; str() is the word."""


@dataclass(frozen=True, slots=True)
class StateFilter:
    states: tuple[str, ...]     # base state names (IDLE ...) or the words of _STATE_WORDS' right column
    all_of: bool                # `&` between them


def parse_states(text: str) -> StateFilter:
    all_of = "&" in text
    words = [w for w in text.replace("&", ",").split(",") if w]
    return StateFilter(tuple(_state_id(w) for w in words), all_of)


def _state_id(word: str) -> str:
    upper = word.upper()
    for long, compact in _BASE_STATES:
        if long.startswith(upper) or compact.startswith(upper):
            return long
    for names, state in _STATE_WORDS:
        if any(name.startswith(upper) for name in names):
            return state
    raise StateError(word)


def _has_state(node: pb.NodeInfo, state: str) -> bool:
    flags = {f.upper() for f in node.flags}
    base = (node.state or "UNKNOWN").upper()
    busy = base in _BUSY or "COMPLETING" in flags
    if state == "DRAINING":
        return "DRAIN" in flags and busy
    if state == "DRAINED":
        return "DRAIN" in flags and not busy
    if state == "ALLOCATED":     # any node with CPUs allocated: mixed ones too
        return base in _BUSY
    if state in dict(_BASE_STATES):
        return base == state
    return state in flags


@dataclass(frozen=True, slots=True)
class NodeFilter:
    names: frozenset[str] | None = None     # -n, expanded
    states: StateFilter | None = None       # -t
    dead: bool = False                       # -d: only nodes not responding
    responding: bool = False                 # -r: only nodes responding

    @property
    def active(self) -> bool:
        return self.names is not None or self.states is not None or self.dead or self.responding

    def keeps(self, node: pb.NodeInfo) -> bool:
        if self.names is not None and node.name not in self.names:
            return False
        silent = "NOT_RESPONDING" in {f.upper() for f in node.flags}
        if (self.dead and not silent) or (self.responding and silent):
            return False
        if self.states is None:
            return True
        matched = (_has_state(node, s) for s in self.states.states)
        return all(matched) if self.states.all_of else any(matched)


def sort_groups(groups: Sequence[sinfo_format.NodeGroup], keys: str,
                partitions: Sequence[pb.PartitionInfo]) -> list[sinfo_format.NodeGroup]:
    """-S: stable sorts from the last key to the first, as sort.c applies them."""
    order = {p.name: i for i, p in enumerate(partitions)}
    ordered = list(groups)
    for key, descending in reversed(_sort_keys(keys)):
        ordered.sort(key=_sort_value(key, order), reverse=descending)
    return ordered


def _sort_keys(text: str) -> list[tuple[str, bool]]:
    keys: list[tuple[str, bool]] = []
    descending = False
    for position, char in enumerate(text):
        if char in ",+%":
            continue
        if char == "-":
            descending = True
            continue
        if char == "#":
            continue
        if char == "P" and position and text[position - 1] == "#":
            keys.append(("#P", descending))
        elif char in sinfo_format.LETTERS:
            keys.append((char, descending))
        descending = False
    return keys


def _sort_value(key: str, order: dict[str, int]) -> Callable[[sinfo_format.NodeGroup], object]:
    if key == "#P":
        return lambda g: order.get(g.partition.name, 0) if g.partition else -1
    if key in ("t", "T"):
        return lambda g: sinfo_format.state_rank(g.nodes[0]) if g.nodes else -1
    field = sinfo_format.FIELDS[sinfo_format.LETTERS[key]]

    def value(group: sinfo_format.NodeGroup) -> object:
        text = field.get(group)
        digits = text.rstrip("+")
        return (0, float(digits), "") if digits.replace(".", "", 1).isdigit() else (1, 0.0, text)
    return value
