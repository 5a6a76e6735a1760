"""srun --multi-prog: a configuration file names each task rank's program and arguments
(srun(1), MULTIPLE PROGRAM CONFIGURATION).

    # comment (a '#' first on its line)
    0       ./master --rank %t
    1-3,5   ./worker offset:%o      # %t: the task's rank, %o: its offset within the line's ranks
    *       ./idle                  # every task not named before; must be the last line

srun checks the whole file against the step's task count before it asks for anything
(`check_config`, Slurm's wording for each fault) and sends its text with the step; each
stepd picks its tasks' command lines from it (`task_argv`). Pure and stdlib only, as the
stepd's exec shim imports it.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

MAX_FILE_BYTES = 60000     # srun refuses a larger file ("is too large"), as Slurm's does
MAX_LINE_CHARS = 16382     # Slurm reads lines into a 16 KiB buffer: longer is "too long"
MAX_ARGC = 127             # Slurm's stepd stops adding arguments here ("argc limit")
MAX_RANK = 2 ** 31 - 1     # ranks are C ints in Slurm; larger numbers are no task range
_SPACE = " \t\n\v\f\r"     # C's isspace
_LEADING_INT = re.compile(r"[ \t\n\v\f\r]*([+-]?\d+)")


class MultiProgError(Exception):
    """A configuration file srun refuses: `lines` are its error lines, in Slurm's words."""

    def __init__(self, *lines: str) -> None:
        super().__init__(lines[-1])
        self.lines = lines


def _atoi(text: str) -> int:
    found = _LEADING_INT.match(text)
    return int(found.group(1)) if found else 0


class _Coverage:
    """Which ranks the lines so far name: disjoint intervals, so a range's size costs nothing."""

    def __init__(self, tasks: int, tasks_set: bool) -> None:
        self.tasks = tasks
        self.tasks_set = tasks_set
        self.grown = False          # the file itself set the count (ranks past the default of 1)
        self.has_asterisk = False
        self.commands = 0           # comma-separated parts (Slurm reserves a port for each)
        self.intervals: list[tuple[int, int]] = []

    def add(self, low: int, high: int, ignore_duplicates: bool) -> None:
        if low > high:
            raise MultiProgError(f"Invalid task range, {low}-{high}")
        if low < 0:
            raise MultiProgError(f"Invalid task id, {low} < 0")
        if high >= self.tasks:
            if self.tasks_set and not self.grown:
                raise MultiProgError(f"Invalid task id, {high} >= ntasks")
            self.tasks, self.tasks_set, self.grown = high + 1, True, True
        if not ignore_duplicates:
            for first, last in self.intervals:
                if first <= high and low <= last:
                    raise MultiProgError(f"Duplicate record for task {max(low, first)}")
        self.intervals.append((low, high))

    def first_missing(self) -> int | None:
        expected = 0
        for first, last in sorted(self.intervals):
            if first > expected:
                return expected
            expected = max(expected, last + 1)
        return expected if expected < self.tasks else None

    def add_ranks(self, ranks: str) -> None:
        if ranks == "*":    # every task not named yet, so no duplicates to report
            self.tasks_set = self.has_asterisk = True
            self.commands += 1
            self.add(0, self.tasks - 1, ignore_duplicates=True)
            return
        for part in (p for p in ranks.split(",") if p):
            self.commands += 1
            digits = len(part) - len(part.lstrip("0123456789"))
            rest = part[digits:]
            if self.has_asterisk:
                raise MultiProgError("Task range specification with asterisk must be last")
            if not rest:
                low = high = _atoi(part)
            elif rest[0] == "-":
                upper = rest[1:]
                if upper.lstrip("0123456789"):
                    raise MultiProgError("Invalid task range specification")
                low, high = _atoi(part), _atoi(upper)
            else:
                raise MultiProgError(f"Invalid task range specification ({part})")
            if max(abs(low), abs(high)) > MAX_RANK:
                raise MultiProgError(f"Invalid task range specification ({part})")
            self.add(low, high, ignore_duplicates=False)


def _statements(lines: list[str], name: str | None = None) -> Iterator[tuple[int, str]]:
    """(index, text without leading blanks) of each line that says something: not a comment, not
    blank, not the continuation of a line ending in a backslash. With `name` (srun's check) a
    line too long for Slurm's buffer is refused."""
    continued = False
    for index, line in enumerate(lines):
        if name is not None and len(line) >= MAX_LINE_CHARS:
            raise MultiProgError(f"Line {index + 1} of configuration file {name} too long")
        was_continued, continued = continued, line.endswith("\\")
        body = line.lstrip(_SPACE)
        if not was_continued and body and not body.startswith("#"):
            yield index, body


def check_config(name: str, text: str, tasks: int, tasks_set: bool) -> tuple[int, int]:
    """srun's check of a configuration file (`name` as given) for a step of `tasks` tasks
    (`tasks_set`: -n or SLURM_NTASKS gave it; else ranks past it raise the count, as Slurm's
    srun does). Returns (task count, commands); raises MultiProgError in Slurm's words."""
    coverage = _Coverage(tasks, tasks_set)
    for index, body in _statements(text.split("\n"), name):
        number = index + 1
        words = [w for w in re.split(r"[ \t\n]+", body) if w]
        if len(words) < 2:
            raise MultiProgError(f"Line {number} of configuration file {name} invalid")
        try:
            coverage.add_ranks(words[0])
        except MultiProgError as exc:
            raise MultiProgError(*exc.lines, f"Line {number} of configuration file {name} invalid") from None
    missing = coverage.first_missing()
    if missing is not None:
        raise MultiProgError(f"Configuration file {name} invalid, no record for task id {missing}")
    return coverage.tasks, coverage.commands


def _offset_in(rank: int, spec: str) -> int | None:
    """The rank's offset within a line's ranks (counted over its comma-separated parts), or None."""
    if spec == "*":
        return rank
    passed = 0
    for part in (p for p in spec.split(",") if p):
        digits = len(part) - len(part.lstrip("0123456789"))
        rest = part[digits:]
        if not rest:
            if rank == _atoi(part):
                return passed
            passed += 1
        elif rest[0] == "-" and not rest[1:].lstrip("0123456789"):
            low, high = _atoi(part), _atoi(rest[1:])
            if low <= rank <= high:
                return passed + rank - low
            passed += 1 + high - low
    return None


def _arguments(lines: list[str], index: int, text: str, rank: int, offset: int) -> list[str]:
    """One line's words: %t and %o replaced, 'quoted' text kept whole, a backslash escaping the next
    character (at the end of a line: the argument goes on on the next line)."""
    args: list[str] = []
    current: str | None = None
    at = 0
    while at < len(text):
        char = text[at]
        if char in _SPACE:
            if current is not None:
                args.append(current)
                current = None
            at += 1
        elif char == "%":
            code = text[at + 1:at + 2]
            current = (current or "") + (str(rank) if code == "t" else str(offset) if code == "o" else "")
            at += 2
        elif char == "\\":
            if at + 1 < len(text):
                current = (current or "") + text[at + 1]
                at += 2
            elif index + 1 < len(lines):
                index += 1
                text, at = lines[index], 0
            else:
                at += 1
        elif char == "'":
            end = text.find("'", at + 1)
            if end < 0:
                raise MultiProgError(f"Program arguments specification format invalid: {args[-1] if args else ''}.")
            current = (current or "") + text[at + 1:end]
            at = end + 1
        else:
            current = (current or "") + char
            at += 1
    if current is not None:
        args.append(current)
    return args


def task_argv(text: str, rank: int, extra: list[str]) -> list[str]:
    """The command line of task `rank`: its line's program and arguments, then `extra` (the words
    after the configuration file on srun's command line). Raises MultiProgError in the stepd's words."""
    lines = [line for line in text.split("\n") if line]
    for index, body in _statements(lines):
        spec = body.split(maxsplit=1)[0]
        spec_end = len(spec)
        if spec_end == len(body):
            raise MultiProgError(f"Invalid MPMD configuration line {index + 1}")
        offset = _offset_in(rank, spec)
        if offset is None:
            continue
        argv = _arguments(lines, index, body[spec_end:], rank, offset) + list(extra)
        return argv[:MAX_ARGC]
    raise MultiProgError(f"Program for task rank {rank} not specified.")
