"""glibc getopt_long over an option table, as Slurm's sbatch, srun and salloc run it.

The rules users rely on: long options by any unique prefix (`--out=` is --output; aliases
of one option are not ambiguous), `--opt value` and `--opt=value`, optional arguments only
glued (`--nice` never takes the next word; `-K1`), bundled short options (`-Hn4`), `--`
ending the options, and "+" mode: the first non-option word ends them (the script or the
program and its own arguments follow); getopt_permuted is glibc's default mode instead, which
the query commands use (operands anywhere). Errors carry glibc's wording; the caller prefixes
the program name and adds Slurm's "Try ... --help" line.

Pure, and plain data in: the tables are tuples (see cli/option_tables/), so parsing costs
no imports on the CLI start-up path.
"""
from __future__ import annotations

from collections.abc import Sequence

NONE, REQUIRED, OPTIONAL = 0, 1, 2
# A required argument whose occurrences add up: Slurm appends each to a list (sacct -j 1 -j 2 is
# -j 1,2) or ORs its flags (--mail-type). getopt reads it as REQUIRED; cli/command_line's
# OptionValues keeps every occurrence. Of any other option given twice the last one wins.
LIST = 3
# One table row: (long name, short letter or "", argument kind, destination, input env vars, help)
Row = tuple[str, str, int, str, tuple[str, ...], str]
# A parsed option: (destination, value): True for an option without argument, "" for an
# optional argument left out, else the argument text.
Value = str | bool


class GetoptError(Exception):
    """A command-line word getopt refuses; str() is glibc's message without the program name."""


class Parsed:
    """What getopt made of some words: the options in order and where the operands start."""
    __slots__ = ("options", "operand_index")

    def __init__(self, options: list[tuple[str, Value]], operand_index: int) -> None:
        self.options = options
        self.operand_index = operand_index


_INDEXES: dict[int, tuple[dict[str, Row], dict[str, Row]]] = {}


def _index(table: Sequence[Row]) -> tuple[dict[str, Row], dict[str, Row]]:
    key = id(table)
    if key not in _INDEXES:
        shorts: dict[str, Row] = {}
        for row in table:
            if row[1]:
                shorts.setdefault(row[1], row)   # the first row with a letter owns it, as in the optstring
        _INDEXES[key] = ({row[0]: row for row in table if row[0]}, shorts)
    return _INDEXES[key]


def getopt(words: Sequence[str], table: Sequence[Row]) -> Parsed:
    """Options of `words` (no program name) until the first operand."""
    longs, shorts = _index(table)
    options: list[tuple[str, Value]] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            return Parsed(options, i + 1)
        if not word.startswith("-") or word == "-":
            break
        i = _option(words, i, table, longs, shorts, options)
    return Parsed(options, i)


def getopt_permuted(words: Sequence[str], table: Sequence[Row]) -> tuple[Parsed, list[str]]:
    """glibc's default mode, which Slurm's query commands (squeue, scancel, sacct ...) use:
    operands may stand anywhere among the options; `--` ends the options. Returns the options
    and the operands in order."""
    longs, shorts = _index(table)
    options: list[tuple[str, Value]] = []
    operands: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            operands += words[i + 1:]
            break
        if not word.startswith("-") or word == "-":
            operands.append(word)
            i += 1
            continue
        i = _option(words, i, table, longs, shorts, options)
    return Parsed(options, len(words)), operands


def _option(words: Sequence[str], i: int, table: Sequence[Row], longs: dict[str, Row], shorts: dict[str, Row],
            options: list[tuple[str, Value]]) -> int:
    """Read the option word `words[i]` (and its argument word, if it takes the next one) into
    `options`; returns the index of the next word."""
    word = words[i]
    i += 1
    if word.startswith("--"):
        row, inline = _long_row(word[2:], table, longs)
        if row[2] == NONE and inline is not None:
            raise GetoptError(f"option '--{row[0]}' doesn't allow an argument")
        return _take(row, inline, words, i, options, f"option '--{row[0]}' requires an argument")
    for position in range(1, len(word)):
        letter = word[position]
        row = shorts.get(letter)
        if row is None:
            raise GetoptError(f"invalid option -- '{letter}'")
        if row[2] != NONE:   # the rest of the word, if any, is its argument
            return _take(row, word[position + 1:] or None, words, i, options,
                         f"option requires an argument -- '{letter}'")
        options.append((row[3], True))
    return i


def _take(row: Row, glued: str | None, words: Sequence[str], i: int, options: list[tuple[str, Value]],
          missing: str) -> int:
    """Record `row`'s option with its argument (glued, else the next word when required);
    returns the index of the next word to read."""
    if row[2] == NONE:
        options.append((row[3], True))
    elif glued is not None:
        options.append((row[3], glued))
    elif row[2] == OPTIONAL:
        options.append((row[3], ""))
    elif i < len(words):
        options.append((row[3], words[i]))
        return i + 1
    else:
        raise GetoptError(missing)
    return i


def _long_row(text: str, table: Sequence[Row], longs: dict[str, Row]) -> tuple[Row, str | None]:
    """The row `--text` names (exactly, else by unique prefix) and its `=` argument if any."""
    name, equals, inline = text.partition("=")
    exact = longs.get(name)
    if exact is not None:
        return exact, inline if equals else None
    matches = [row for row in table if row[0].startswith(name)] if name else []
    if not matches:
        raise GetoptError(f"unrecognized option '--{text}'")
    first = matches[0]
    differing = [row for row in matches[1:] if (row[2], row[3]) != (first[2], first[3])]
    if differing:
        names = " ".join(f"'--{row[0]}'" for row in [first, *differing])
        raise GetoptError(f"option '--{text}' is ambiguous; possibilities: {names}")
    return first, inline if equals else None
