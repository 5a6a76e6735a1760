"""The "print_fields" table renderer shared by sacct, sacctmgr, sshare and sreport.

Owns spec §1 of cli-sacct-sacctmgr-sprio-sshare.md:

* padded layout: every cell justified to ``|width|`` (negative width = left-justified) and
  followed by one space, also after the last field; a header line and a dash line;
  strings longer than the width are cut and end in ``+``; numbers are never cut;
* ``-p``: cells joined by the delimiter with a trailing delimiter; ``-P``: no trailing one;
  neither pads, truncates nor prints the dash line;
* field lists ``name[%[-]N],...`` with case-insensitive prefix matching of names, the first
  match in alphabetical order winning.

Pure. Errors: :class:`FormatError` (``Invalid field requested: "<name>"``) from
:func:`parse_field_list`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from pyslurm_common.str_enum import StrEnum
from pyslurm_common.typed_tuple import NamedTuple

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any, Protocol, TypeVar

Value = str | int | None  # None = unset (printed blank)
# Widths beyond this are refused: `%999999999` would print a gigabyte of padding per cell.
MAX_FIELD_WIDTH = 65536


class FormatError(ValueError):
    """Invalid field list; ``str()`` is the text printed after ``<prog>: error: ``."""


class Parsable(StrEnum):   # a str_enum, so that squeue, which imports this module, imports no enum
    """Output layout: padded table, ``-p`` (trailing delimiter) or ``-P`` (none)."""

    NONE = "none"
    TRAILING = "trailing"  # -p / --parsable
    NO_TRAILING = "no_trailing"  # -P / --parsable2


class Column(NamedTuple):   # a NamedTuple: CLIs import it, and dataclasses would import inspect
    """A field to print: its canonical *name* and signed *width* (negative = left)."""

    name: str
    width: int


def match_field(name: str, names: Iterable[str]) -> str:
    """The canonical field *name* abbreviates: case-insensitive prefix match, first in
    alphabetical order (``jobid`` -> ``JobID``, ``elap`` -> ``Elapsed``)."""
    wanted = name.strip().lower()
    if wanted:
        for candidate in sorted(names, key=str.lower):
            if candidate.lower().startswith(wanted):
                return candidate
    raise FormatError(f'Invalid field requested: "{name}"')


def parse_field_list(spec: str | Sequence[str], widths: Mapping[str, int]) -> list[Column]:
    """Parse ``JobID,elap%15,state%-20``; *widths* maps canonical names to default widths.

    ``%N`` sets width N right-justified, ``%-N`` left-justified.
    """
    items = spec.split(",") if isinstance(spec, str) else [
        part for item in spec for part in item.split(",")
    ]
    columns: list[Column] = []
    for item in items:
        if not item.strip():
            continue
        name, percent, size = item.strip().partition("%")
        canonical = match_field(name, widths)
        width = widths[canonical]
        if percent:
            try:
                width = int(size)
            except ValueError:
                raise FormatError(f'Invalid field requested: "{item.strip()}"') from None
            if abs(width) > MAX_FIELD_WIDTH:
                raise FormatError(f'Invalid field requested: "{item.strip()}"')
        columns.append(Column(canonical, width))
    return columns


def help_columns(names: Iterable[str], per_line: int = 4) -> list[str]:
    """A ``--helpformat`` listing: the names alphabetically, *per_line* to a line, 20 wide."""
    ordered = sorted(names, key=str.lower)
    rows = [ordered[i:i + per_line] for i in range(0, len(ordered), per_line)]
    return ["".join(f"{name:<20}" for name in row).rstrip() for row in rows]


def _pad(text: str, width: int) -> str:
    size = abs(width)
    return text.ljust(size) if width < 0 else text.rjust(size)


def format_cell(value: Value, width: int) -> str:
    """One padded cell (without the following space)."""
    if value is None:
        return _pad("", width)
    if isinstance(value, int):
        return _pad(str(value), width)
    size = abs(width)
    if len(value) > size:
        value = value[: size - 1] + "+" if size else ""
    return _pad(value, width)


def _join(cells: Sequence[str], parsable: Parsable, delimiter: str) -> str:
    if parsable is Parsable.NONE:
        return "".join(cell + " " for cell in cells)
    text = delimiter.join(cells)
    return text + delimiter if parsable is Parsable.TRAILING else text


def header_lines(
    columns: Sequence[Column], parsable: Parsable = Parsable.NONE, delimiter: str = "|"
) -> list[str]:
    """The header line, plus the dash line in the padded layout."""
    if parsable is not Parsable.NONE:
        return [_join([c.name for c in columns], parsable, delimiter)]
    names = [_pad(c.name[: abs(c.width)], c.width) for c in columns]
    dashes = ["-" * abs(c.width) for c in columns]
    return [_join(names, parsable, ""), _join(dashes, parsable, "")]


def format_row(
    columns: Sequence[Column],
    values: Sequence[Value],
    parsable: Parsable = Parsable.NONE,
    delimiter: str = "|",
) -> str:
    """One data line."""
    if parsable is not Parsable.NONE:
        cells = ["" if v is None else str(v) for v in values]
    else:
        cells = [format_cell(v, c.width) for c, v in zip(columns, values)]
    return _join(cells, parsable, delimiter)


if TYPE_CHECKING:
    R = TypeVar("R", contravariant=True)

    class FieldGetter(Protocol[R]):
        """A field table entry: how to get a cell's value from one record."""

        @property
        def get(self) -> Callable[[R], Value]: ...


def render_records(
    fields: Mapping[str, FieldGetter[R]],
    columns: Sequence[Column],
    records: Iterable[R],
    **options: Any,
) -> list[str]:
    """`render` with each record's cells taken from a field table (sacct, sstat)."""
    return render(columns, (record_values(fields, columns, r) for r in records), **options)


def record_values(fields: Mapping[str, FieldGetter[R]], columns: Sequence[Column], record: R) -> list[Value]:
    """The cell values of one record for *columns*."""
    return [fields[c.name].get(record) for c in columns]


def render(
    columns: Sequence[Column],
    rows: Iterable[Sequence[Value]],
    *,
    parsable: Parsable = Parsable.NONE,
    delimiter: str = "|",
    header: bool = True,
) -> list[str]:
    """All output lines (no newlines): header unless ``header=False`` (``-n``), then rows."""
    lines = header_lines(columns, parsable, delimiter) if header else []
    lines.extend(format_row(columns, row, parsable, delimiter) for row in rows)
    return lines
