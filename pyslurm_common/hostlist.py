"""Slurm hostlist expressions: expanding ``node[01-03,12]`` and compressing names back.

This module owns the hostlist grammar used everywhere a set of node names is written down:
slurm.conf ``NodeName=``/``Nodes=``, ``SLURM_JOB_NODELIST``, squeue ``%N``, ``scontrol show
hostnames|hostlist|hostlistsorted``.  It is pure (no I/O) and stdlib-only because the CLIs import
it.

Grammar (spec config-slurm-conf.md §2): a comma-separated list of items; an item is literal text
with zero or more ``[ranges]`` groups, ``ranges`` being a comma list of ``N`` or ``A-B``.  Several
groups expand to their cartesian product, leftmost group varying slowest.  The lower bound's
digit count is the minimum (zero-padded) width.  A single group must end the item (``n[1-3]x`` is
invalid); with several groups text may follow each of them.

Errors: every malformed expression raises :class:`HostlistError` with the exact text Slurm's
``scontrol show hostnames`` prints, ``Invalid hostlist: <expr>``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

from .typed_tuple import NamedTuple

__all__ = ["HostlistError", "MAX_HOSTS", "compress", "expand"]

# Our own guard, not a Slurm number: an expression such as ``n[0-99999999]`` would otherwise
# build a hundred million strings inside a CLI or the controller.
MAX_HOSTS = 1 << 20

# Patterns as strings, compiled on first use through re's own cache: every CLI imports this
# module (slurm.conf) and most never expand a hostlist.
_RANGE_ITEM = r"(\d+)(?:-(\d+))?"
_NUMERIC_SUFFIX = r"(?s)^(.*?)(\d+)$"
_FORBIDDEN_IN_NAME = r"[\[\],\s]"


class HostlistError(ValueError):
    """A hostlist expression (or a name handed to :func:`compress`) is malformed."""

    def __init__(self, expr: str) -> None:
        super().__init__(f"Invalid hostlist: {expr}")
        self.expr = expr


# --------------------------------------------------------------------------------------------
# expansion


def expand(expr: str) -> list[str]:
    """Expand a hostlist expression into names, keeping order and duplicates.

    >>> expand("node[01-03,12]")
    ['node01', 'node02', 'node03', 'node12']
    >>> expand("gpu-a[1-2]-[3-4]")
    ['gpu-a1-3', 'gpu-a1-4', 'gpu-a2-3', 'gpu-a2-4']
    """
    text = expr.strip()
    names: list[str] = []
    for item in _split_top_level(text, expr):
        if not item:
            # Slurm tolerates empty items (``a,,b`` or a trailing comma); so do we.
            continue
        for name in _expand_item(item, expr):
            names.append(name)
            if len(names) > MAX_HOSTS:
                raise HostlistError(expr)
    return names


def _split_top_level(text: str, expr: str) -> list[str]:
    """Split on commas that are not inside brackets; reject unbalanced or nested brackets."""
    items: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
            if depth > 1:
                raise HostlistError(expr)
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise HostlistError(expr)
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise HostlistError(expr)
    items.append(text[start:])
    return items


def _expand_item(item: str, expr: str) -> Iterator[str]:
    """Expand one comma-free item such as ``rack[0-1]_blade[0-2]``."""
    if any(ch.isspace() for ch in item):
        raise HostlistError(expr)
    import re   # where a name is parsed: squeue and scancel import this module, most calls parse none

    # re.split with a capturing group alternates literal text and bracket contents:
    # [text0, group0, text1, group1, ..., textN].
    parts = re.split(r"\[([^\]]*)\]", item)
    literals = parts[0::2]
    groups = parts[1::2]
    if not groups:
        return iter([item])
    if len(groups) == 1 and literals[1]:
        # A lone numeric group must close the name (spec table: ``n[1-3]x`` is an error).
        raise HostlistError(expr)
    choices = [_expand_ranges(g, expr) for g in groups]
    total = 1
    for c in choices:
        total *= len(c)
    if total > MAX_HOSTS:
        raise HostlistError(expr)
    return (_interleave(literals, combo) for combo in itertools.product(*choices))


def _interleave(literals: list[str], numbers: tuple[str, ...]) -> str:
    out = [literals[0]]
    for number, literal in zip(numbers, literals[1:]):
        out.append(number)
        out.append(literal)
    return "".join(out)


def _expand_ranges(body: str, expr: str) -> list[str]:
    """``01-03,12`` → ['01', '02', '03', '12'] (width taken from each lower bound)."""
    import re

    values: list[str] = []
    for part in body.split(","):
        m = re.fullmatch(_RANGE_ITEM, part)
        if m is None:
            raise HostlistError(expr)
        lo_text, hi_text = m.group(1), m.group(2)
        lo = int(lo_text)
        hi = lo if hi_text is None else int(hi_text)
        if hi < lo or hi - lo >= MAX_HOSTS:
            raise HostlistError(expr)
        width = len(lo_text)
        values.extend(f"{n:0{width}d}" for n in range(lo, hi + 1))
    return values


# --------------------------------------------------------------------------------------------
# compression


class _Name(NamedTuple):   # not a dataclass: CLIs import this, and dataclasses would import inspect
    """A host name split at its trailing number: ``node009`` → prefix ``node``, digits ``009``."""

    prefix: str
    digits: str  # "" when the name has no trailing number

    @property
    def number(self) -> int:
        return int(self.digits)

    @property
    def widths(self) -> tuple[int, int]:
        """Zero-pad widths that reproduce ``digits`` exactly, as an inclusive (min, max).

        ``009`` only prints back as itself with width 3; ``10`` prints as itself with width 1 or
        2.  This is what makes ``node9,node10`` mergeable while ``n01,n1`` are not.
        """
        if len(self.digits) > 1 and self.digits[0] == "0":
            return (len(self.digits), len(self.digits))
        return (1, len(self.digits))


class _Run:
    """A run of consecutive numbers sharing a prefix and a compatible zero-pad width."""

    __slots__ = ("prefix", "lo", "hi", "width_lo", "width_hi")

    def __init__(self, prefix: str, lo: int, hi: int, width_lo: int, width_hi: int) -> None:
        self.prefix, self.lo, self.hi, self.width_lo, self.width_hi = prefix, lo, hi, width_lo, width_hi

    def try_extend(self, name: _Name) -> bool:
        if name.prefix != self.prefix or name.number != self.hi + 1:
            return False
        w_lo, w_hi = name.widths
        new_lo, new_hi = max(self.width_lo, w_lo), min(self.width_hi, w_hi)
        if new_lo > new_hi:
            return False
        self.hi, self.width_lo, self.width_hi = name.number, new_lo, new_hi
        return True

    def render(self) -> str:
        # Any width inside [width_lo, width_hi] prints every member identically.
        w = self.width_lo
        if self.lo == self.hi:
            return f"{self.lo:0{w}d}"
        return f"{self.lo:0{w}d}-{self.hi:0{w}d}"


def _split_name(name: str) -> _Name:
    import re

    if not name or re.search(_FORBIDDEN_IN_NAME, name):
        raise HostlistError(name)
    m = re.match(_NUMERIC_SUFFIX, name)
    if m is None:
        return _Name(name, "")
    return _Name(m.group(1), m.group(2))


def _sort_key(name: _Name) -> tuple[str, int, int]:
    # Prefix first, then digit count, then value: gives Slurm's ``node[2,009-010]`` and
    # ``n[1-2,01]``, and plain numeric order for unpadded numbers.  Bare names sort before
    # numbered names that share their text as prefix.
    if not name.digits:
        return (name.prefix, -1, -1)
    return (name.prefix, len(name.digits), name.number)


def compress(names: Iterable[str], sort: bool = True, unique: bool | None = None) -> str:
    """Compress names into a hostlist expression.

    ``sort=True`` (what daemons print: squeue ``%N``, ``SLURM_JOB_NODELIST``): deduplicated and
    sorted, ``a1,a2,a3,b7,a5`` → ``a[1-3,5],b7``.  ``sort=False`` (``scontrol show hostlist``):
    order and duplicates kept, → ``a[1-3],b7,a5``.

    ``unique`` defaults to ``sort``.  ``sort=True, unique=False`` is ``scontrol show
    hostlistsorted``, which sorts but keeps duplicates (``node1,node1,node2`` → ``node[1,1-2]``).

    Raises :class:`HostlistError` for a name that cannot be written in a hostlist (empty, or
    containing brackets, commas or whitespace).
    """
    parsed = [_split_name(n) for n in names]
    if sort if unique is None else unique:
        parsed = list(dict.fromkeys(parsed))
    if sort:
        parsed.sort(key=_sort_key)

    # Build runs (bare names stay plain strings), then group neighbouring runs that share a
    # prefix into one bracket expression.
    units: list[_Run | str] = []
    for name in parsed:
        if not name.digits:
            units.append(name.prefix)
            continue
        last = units[-1] if units else None
        if isinstance(last, _Run) and last.try_extend(name):
            continue
        w_lo, w_hi = name.widths
        units.append(_Run(name.prefix, name.number, name.number, w_lo, w_hi))

    pieces: list[str] = []
    i = 0
    while i < len(units):
        unit = units[i]
        if isinstance(unit, str):
            pieces.append(unit)
            i += 1
            continue
        group = [unit]
        i += 1
        while i < len(units):
            nxt = units[i]
            if not isinstance(nxt, _Run) or nxt.prefix != unit.prefix:
                break
            group.append(nxt)
            i += 1
        pieces.append(_render_group(group))
    return ",".join(pieces)


def _render_group(group: list[_Run]) -> str:
    prefix = group[0].prefix
    if len(group) == 1 and group[0].lo == group[0].hi:
        return prefix + group[0].render()
    return prefix + "[" + ",".join(run.render() for run in group) + "]"


def compress_numbers(values: Iterable[int]) -> str:
    """``{0, 1, 2, 5}`` -> ``0-2,5``: cpusets, task rank lists (sorted, duplicates dropped)."""
    ordered = sorted(set(values))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(parts)


def compress_counts(counts: Iterable[int]) -> str:
    """``2,2,2,1`` -> ``2(x3),1`` as in SLURM_JOB_CPUS_PER_NODE and SLURM_TASKS_PER_NODE."""
    parts = []
    for value, run in itertools.groupby(counts):
        repeats = len(list(run))
        parts.append(f"{value}(x{repeats})" if repeats > 1 else str(value))
    return ",".join(parts)
