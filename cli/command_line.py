"""A command's options from its table: command line, input environment variables, --help,
--usage, --version and getopt's errors, as Slurm's sbatch, srun and salloc give them.

Precedence is Slurm's: what an earlier source set, a later one overrides, in the order
batch script directives (sbatch only, see sbatch_script.py), environment, command line.
`OptionValues.source(dest)` tells which one a value came from. Of an option given more than once
the last occurrence wins, unless its table row declares it LIST (cli/getopt_long.py): then the
occurrences add up, across the sources too, as Slurm appends to one list whoever sets it.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType

from .getopt_long import LIST, GetoptError, Parsed, Row, Value, getopt

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any, NoReturn

VERSION_LINE = "slurm 22.05.8"
GETOPT_EXIT = 255           # Slurm exits -1 on a word getopt refuses, whatever SLURM_EXIT_ERROR says
OPTION_EXIT = 255           # ... and on a value most of its option parsers refuse
COMMAND_LINE, ENVIRONMENT, SCRIPT = "command line", "environment", "script"
COUNTED = frozenset({"verbose"})   # -vv: each occurrence counts
EARLY = ("help", "usage", "version")


class OptionValues(dict[str, "Any"]):   # quoted: Any is imported for type checkers only
    """dest -> value (True for a flag, "" for an optional argument left out, else the text; a
    LIST option's occurrences joined by commas, which is how each reader splits it), with where
    each value came from and every occurrence of a LIST option."""

    def __init__(self, table: Sequence[Row] = ()) -> None:
        super().__init__()
        self.sources: dict[str, str] = {}
        self.lists = list_dests(table)
        self.occurrences: dict[str, list[str]] = {}

    def set_from(self, source: str, options: Iterable[tuple[str, Value]]) -> None:
        for dest, value in options:
            if dest in COUNTED:
                value = (self.get(dest) or 0) + 1
            elif dest in self.lists:
                given = self.occurrences.setdefault(dest, [])
                given.append(str(value))
                value = ",".join(given)
            self[dest] = value
            self.sources[dest] = source

    def source(self, dest: str) -> str | None:
        return self.sources.get(dest)

    def given(self, dest: str) -> bool:
        return dest in self


def occurrences(values: Mapping[str, Any], dest: str) -> list[str]:
    """Each occurrence of `dest` in order (a LIST option's every one, another option's last), for
    readers that judge each on its own: Slurm refuses `--mail-type=FOO --mail-type=END` and
    `--accel-bind=x --accel-bind=v` at the first occurrence; [] when not given."""
    if isinstance(values, OptionValues) and dest in values.lists:
        return values.occurrences.get(dest, [])
    return [str(values[dest])] if dest in values else []


_LISTS: dict[int, frozenset[str]] = {}


def list_dests(table: Sequence[Row]) -> frozenset[str]:
    """The destinations of `table`'s LIST rows (worked out once per table)."""
    key = id(table)
    if key not in _LISTS:
        _LISTS[key] = frozenset(row[3] for row in table if row[2] == LIST)
    return _LISTS[key]


def usage_error(prog: str, message: str) -> NoReturn:
    print(f"{prog}: {message}", file=sys.stderr)
    print(f'Try "{prog} --help" for more information', file=sys.stderr)
    raise SystemExit(GETOPT_EXIT)


def parse_words(prog: str, words: Sequence[str], table: Sequence[Row]) -> Parsed:
    """getopt over `words`; a refused word ends the command with getopt's message."""
    try:
        return getopt(words, table)
    except GetoptError as exc:
        usage_error(prog, str(exc))


def environment_options(table: Sequence[Row], environ: Mapping[str, str]) -> list[tuple[str, Value]]:
    """The options the input environment variables set, each as its option would.

    A variable that is set counts even when empty (Slurm's getenv); for an option without an
    argument its value is not looked at. Of several variables for one option the last listed wins."""
    found: list[tuple[str, Value]] = []
    for _name, _short, kind, dest, variables, _help in table:
        for variable in variables:
            if variable in environ:
                found.append((dest, True if kind == 0 else environ[variable]))
    return found


def handle_early(spec: ModuleType, parsed: Parsed) -> None:
    """--help, --usage and -V/--version act where they stand, before anything else is checked."""
    for dest, _value in parsed.options:
        if dest in EARLY:
            print(render_help(spec) if dest == "help" else render_usage(spec) if dest == "usage" else VERSION_LINE)
            raise SystemExit(0)


def command_line(spec: ModuleType, args: Sequence[str]) -> Parsed:
    """getopt over the command line; --help, --usage and --version act here and exit."""
    try:
        parsed = getopt(args, spec.OPTIONS)
    except GetoptError as exc:
        # Options before the refused word still act: `sbatch --help --bogus` prints the help.
        partial = _options_before_error(args, spec.OPTIONS)
        if partial is not None:
            handle_early(spec, partial)
        usage_error(spec.PROG, str(exc))
    handle_early(spec, parsed)
    return parsed


def collect(spec: ModuleType, cli: Parsed, environ: Mapping[str, str],
            script: Iterable[tuple[str, Value]] = ()) -> OptionValues:
    """Directives, then the environment, then the command line: each overrides the ones before."""
    values = OptionValues(spec.OPTIONS)
    values.set_from(SCRIPT, script)
    values.set_from(ENVIRONMENT, environment_options(spec.OPTIONS, environ))
    values.set_from(COMMAND_LINE, cli.options)
    return values


def _options_before_error(args: Sequence[str], table: Sequence[Row]) -> Parsed | None:
    for end in range(len(args) - 1, 0, -1):
        try:
            return getopt(args[:end], table)
        except GetoptError:
            continue
    return None


def render_help(spec: ModuleType) -> str:
    blocks = {row[0]: row[5] for row in spec.OPTIONS if row[5]}
    lines = [spec.HELP_USAGE]
    lines += [blocks[entry[2:]] if entry.startswith("--") else entry for entry in spec.HELP_LAYOUT]
    return "\n".join(lines)


def render_usage(spec: ModuleType) -> str:
    return "\n".join(spec.USAGE)
