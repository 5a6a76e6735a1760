"""The map/mask lists of srun's --cpu-bind and --mem-bind (map_cpu, mask_cpu, map_ldom, mask_ldom,
map_mem, mask_mem), read as Slurm 22.05 reads both options: where a list ends among the option's
words (`words`), and the list with its `value*count` multipliers written out (`expand`, Slurm's
_expand_mult). One reading for both options, so a refusal is worded alike, naming the list kind.

Pure; stdlib only (the stepd imports it). Raises the caller's error class with Slurm's message.
"""
from __future__ import annotations

import re

MAX_ENTRIES = 4096   # a list's entries once multipliers are written out: bounded, as every user number

_DECIMAL = frozenset("0123456789")
_HEXADECIMAL = frozenset("0123456789abcdefABCDEF")
_VALUE = re.compile(r"[0-9].*|[0-9a-fA-F]*")


def words(text: str) -> list[str]:
    """The option's words: split at commas, but a comma before a value (a digit, or hexadecimal up
    to the next comma) continues a map/mask list, as Slurm splits (its _isvalue)."""
    out: list[str] = []
    for part in text.split(","):
        if out and _VALUE.fullmatch(part):
            out[-1] += "," + part
        else:
            out.append(part)
    return out


def expand(listed: str, kind: str, error: type[ValueError]) -> tuple[str, ...]:
    """`0*2,3` -> ("0", "0", "3"): a mask's values hexadecimal (a leading 0x dropped), a map's
    decimal; empty items skipped. `kind` (map_cpu, mask_mem, ...) names the list in the message."""
    mask = kind.startswith("mask")
    valid = _HEXADECIMAL if mask else _DECIMAL
    out: list[str] = []
    for item in (part for part in listed.split(",") if part):
        if mask and item.startswith("0x"):
            item = item[2:]
        value, star, count = item.partition("*")
        if star:
            bad = next((c for c in count if c not in _DECIMAL), None)
            if bad is not None:
                raise error(f"Failed to validate number: *{count}, the offending character is {bad}")
            if not count.strip("0"):
                raise error(f"Invalid {kind} multiplier: {count}")
        bad = next((c for c in value if c not in valid), None)
        if bad is not None:
            raise error(f"Failed to validate number: {value}, the offending character is {bad}")
        # a count of more digits than any bound is refused unread (int() of thousands of digits raises)
        times = (int(count) if len(count.lstrip("0")) <= 9 else MAX_ENTRIES + 1) if star else 1
        if len(out) + times > MAX_ENTRIES:   # bounded (Slurm would write out any count up to LONG_MAX)
            raise error(f"Invalid {kind} multiplier: {count or times}")
        out.extend([value] * times)
    return tuple(out)
