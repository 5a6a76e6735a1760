"""The command line of Slurm's query and control commands (squeue, sinfo, scancel, sprio, sdiag,
sstat): getopt_long in glibc's default mode over the command's table (cli/option_tables/),
input environment variables under the command line, and --help, --usage and -V/--version as
Slurm prints them.

What differs from sbatch, srun and salloc (cli/command_line.py): operands may stand anywhere
among the options, and a refused word exits 1 with the "Try ... --help" line (sacct and sstat
print none). Pure data in; importing it costs no click.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType

from .command_line import COMMAND_LINE, ENVIRONMENT, OptionValues, environment_options, handle_early
from .getopt_long import GetoptError, Parsed, Row, Value, getopt_permuted

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import NoReturn

REFUSED_EXIT = 1


class QueryValues(OptionValues):
    """The options by destination, and every (destination, value) in the order given
    (environment first): Slurm acts on each in turn, so for `-a ... --hide` the last wins."""

    def __init__(self, table: Sequence[Row] = ()) -> None:
        super().__init__(table)
        self.sequence: list[tuple[str, object]] = []

    def set_from(self, source: str, options: Iterable[tuple[str, Value]]) -> None:
        options = list(options)
        self.sequence += options
        super().set_from(source, options)

    def first_of(self, *dests: str) -> str | None:
        """Which of `dests` was given first (None: none of them)."""
        return next((dest for dest, _value in self.sequence if dest in dests), None)


def parse(spec: ModuleType, args: Sequence[str],
          environ: Mapping[str, str] | None = None) -> tuple[OptionValues, list[str]]:
    """The options (environment first, then the command line over it) and the operands.
    --help, --usage and --version act here and exit, as does a word getopt refuses."""
    try:
        parsed, operands = getopt_permuted(args, spec.OPTIONS)
    except GetoptError as exc:
        # Options before the refused word still act: `squeue --help --bogus` prints the help.
        handle_early(spec, _options_before_error(args, spec))
        refuse(spec, str(exc))
    handle_early(spec, parsed)
    values = QueryValues(spec.OPTIONS)
    values.set_from(ENVIRONMENT, environment_options(spec.OPTIONS, os.environ if environ is None else environ))
    values.set_from(COMMAND_LINE, parsed.options)
    return values, operands


def refuse(spec: ModuleType, message: str) -> NoReturn:
    print(f"{spec.PROG}: {message}", file=sys.stderr)
    if getattr(spec, "TRY_LINE", True):
        print(f'Try "{spec.PROG} --help" for more information', file=sys.stderr)
    raise SystemExit(REFUSED_EXIT)


def _options_before_error(args: Sequence[str], spec: ModuleType) -> Parsed:
    for end in range(len(args) - 1, 0, -1):
        try:
            return getopt_permuted(args[:end], spec.OPTIONS)[0]
        except GetoptError:
            continue
    return Parsed([], 0)


def list_values(text: str | None) -> list[str] | None:
    """A comma-separated option value as Slurm's _build_str_list reads it (empty items dropped);
    None when the option is not given."""
    if text is None:
        return None
    return [item for item in text.split(",") if item]


def atoi(text: str) -> int:
    """C's atoi, as Slurm reads -i/--iterate: leading blanks and digits, else 0 ("3x" is 3)."""
    digits = text.lstrip()
    sign = digits[:1] if digits[:1] in ("+", "-") else ""
    number = digits[len(sign):]
    end = len(number) - len(number.lstrip("0123456789"))
    return int(sign + number[:end]) if end else 0


def iterate_seconds(text: str, error: str) -> int:
    """-i/--iterate: a positive count of seconds (at most a year); else `error` and exit 1."""
    seconds = atoi(text)
    if seconds <= 0:
        print(error, file=sys.stderr)
        raise SystemExit(1)
    return min(seconds, 86400 * 365)


def last_says(values: QueryValues, on: tuple[str, ...], off: tuple[str, ...]) -> bool:
    """Whether the last of the `on` and `off` options given turns the setting on (Slurm acts on
    each option in turn; the environment's come before the command line's)."""
    setting = False
    for dest, _value in values.sequence:
        if dest in on:
            setting = True
        elif dest in off:
            setting = False
    return setting


def all_or_listed(values: QueryValues, dest: str, all_words: tuple[str, ...], on: tuple[str, ...],
                  off: tuple[str, ...] = ()) -> tuple[bool, list[str]]:
    """sacct's and sshare's -u (and sacct's -M): each occurrence adds its names and turns "all"
    off, one of `all_words` alone (`-u -1`, `-M all`) turns it on, as do the `on` options (-a)
    and the `off` ones off; the last says. Returns (all, the names given); Slurm drops the names
    when all is on."""
    every, names = False, []
    for given, value in values.sequence:
        if given == dest:
            if str(value).lower() in all_words:
                every = True
            else:
                every = False
                names += [item for item in str(value).split(",") if item]
        elif given in on or given in off:
            every = given in on
    return every, [] if every else names


def show_all(values: QueryValues, partition_dest: str) -> bool:
    """-a (and -p, which shows whatever it names) ask for hidden partitions; --hide undoes them."""
    return last_says(values, ("all", partition_dest), ("hide",))


def expand_hosts(text: str) -> list[str]:
    """A host list (`n[1-3],m`) as names; pyslurm_common.hostlist.HostlistError if malformed."""
    from pyslurm_common.hostlist import expand

    return expand(text) if text else []


def data_output(values: QueryValues) -> str | None:
    """"json" or "yaml" when --json/--yaml asks for Slurm 22.05's data_parser document (the
    last of the two given wins, as each sets the same mime type in Slurm), else None."""
    return next((dest for dest, _ in reversed(values.sequence) if dest in ("json", "yaml")), None)


def print_document(document: object, kind: str) -> None:
    """Write a data_parser document as Slurm's serializers do (cli/data_output)."""
    from .data_output import json_text, yaml_text

    sys.stdout.write(json_text(document) if kind == "json" else yaml_text(document))
