"""The line syntax shared by slurm.conf, slurmdbd.conf, gres.conf and cgroup.conf.

This module owns turning a file into tokens (spec config-slurm-conf.md §1) and typing one
token's value; it knows nothing about which keys exist (that is :mod:`pyslurm_common.config`).

Per physical line, in order: everything after an un-escaped ``#`` is a comment; an odd number
of trailing backslashes joins the next line (the backslash is dropped); then ``\\x`` → ``x``.
A logical line is whitespace-separated ``Key=Value`` tokens (spaces around ``=`` allowed,
``"quoted values"`` may hold spaces).  ``Include <path>`` reads another file in place: relative
paths are relative to the directory of the top file (slurm.conf's), ``%c`` is the ClusterName
seen so far, glob patterns are expanded in sorted order.

Errors: :class:`ConfigError` with ``<file>:<line>: <message>`` for unreadable files, bad tokens,
unsupported ``+=``/``-=``, missing Include files and Include loops.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from .bounds import UINT32_MAX, OutOfRange
from .typed_tuple import NamedTuple

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from os import PathLike

    PathName = str | PathLike[str]

__all__ = ["ConfigError", "Token", "read_conf"]
# logging, glob, hostlist and units are imported where used: CLIs read slurm.conf on every call
# (start-up is hot) and type no values. Paths are plain os.path strings for the same reason: pathlib
# would cost every CLI call more than reading the file; callers may pass a Path all the same. No re
# either: importing it (and the enum it imports) and compiling the token pattern cost sbatch more
# instructions than the rest of reading slurm.conf, so the lines are scanned by hand, exactly as
# the patterns in tests/unit/test_conf_syntax_scan.py would.

_MAX_INCLUDE_DEPTH = 16  # an Include loop fails with a clear message, not a RecursionError


class ConfigError(Exception):
    """A configuration file is invalid; ``str()`` is ``<file>:<line>: <message>``.

    ``line`` is None for whole-file problems (unreadable file, missing required key); the text
    is then ``<file>: <message>``.
    """

    def __init__(self, path: PathName, line: int | None, message: str) -> None:
        super().__init__(path, line, message)
        self.path, self.line, self.message = path, line, message

    def __str__(self) -> str:
        where = f"{self.path}" if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.message}"


class Token(NamedTuple):   # a NamedTuple: CLIs import it, and dataclasses would import inspect
    """One ``Key=Value`` as written, with where it was written.

    The ``as_*`` converters raise :class:`ConfigError` at this token's file:line with a message
    that names the key, so callers never word errors themselves.
    """

    key: str  # spelling as written; compare with ``lower``
    value: str  # quotes removed
    path: PathName
    line: int

    @property
    def lower(self) -> str:
        return self.key.lower()

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def unrecognized(self) -> str:
        """Slurm's words for a key it does not know, at this token's file:line. Slurm refuses the
        file; pyslurm warns and goes on (spec: unknown keys are warnings)."""
        return f"{self.where}: Parsing error at unrecognized key: {self.key}"

    def error(self, message: str) -> ConfigError:
        return ConfigError(self.path, self.line, message)

    def _invalid(self, expected: str) -> ConfigError:
        return self.error(f"invalid {self.key} value {self.value!r}: {expected}")

    def _out_of_range(self) -> ConfigError:
        return self.error(f"{self.key} value ({self.value}) is out of range")   # Slurm's words

    def as_int(self, minimum: int = 0, maximum: int = UINT32_MAX) -> int:
        """An integer in minimum..maximum; by default what Slurm's uint32 settings hold."""
        try:
            value = int(self.value)
        except ValueError:
            raise self._invalid("expected an integer") from None
        if value < minimum:
            raise self._invalid(f">= {minimum} required")
        if value > maximum:
            raise self._out_of_range()
        return value

    def as_port(self) -> int:
        # SlurmctldPort may be a range (``6817-6818``); pyslurm listens on the first port only.
        first = self.value.split("-", 1)[0]
        return Token(self.key, first, self.path, self.line).as_int(1, 65535)

    def as_memory_mb(self) -> int:
        from pyslurm_common.units import parse_memory_mb

        try:
            return parse_memory_mb(self.value)
        except OutOfRange:
            raise self._out_of_range() from None
        except ValueError:
            raise self._invalid("expected a size in MB (or with a K/M/G/T suffix)") from None

    def as_time_limit(self) -> int:
        from pyslurm_common.units import parse_time_limit

        try:
            return parse_time_limit(self.value)
        except OutOfRange:
            raise self._out_of_range() from None
        except ValueError:
            raise self._invalid("expected a time limit such as 60, 1:00:00, 2-0 or UNLIMITED") from None

    def as_bool(self) -> bool:
        word = self.value.upper()
        if word in ("YES", "TRUE", "1"):
            return True
        if word in ("NO", "FALSE", "0"):
            return False
        raise self._invalid("expected YES or NO")

    def as_choice(self, allowed: frozenset[str]) -> str:
        """The value upper-cased, which must be one of ``allowed`` (Slurm enums ignore case)."""
        word = self.value.upper()
        if word not in allowed:
            raise self._invalid(f"expected one of {', '.join(sorted(allowed))}")
        return word

    def as_hostlist(self) -> list[str]:
        from pyslurm_common import hostlist

        try:
            return hostlist.expand(self.value)
        except hostlist.HostlistError as e:
            raise self.error(f"invalid {self.key} value: {e}") from None


# --------------------------------------------------------------------------------------------
# physical lines → logical lines → tokens

_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.")
_GLOB_CHARS = "*?["


def _unescape(text: str) -> str:
    """``\\x`` -> ``x`` for any character but a newline (a lone trailing backslash stays)."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i, end = 0, len(text)
    while i < end:
        if text[i] == "\\" and i + 1 < end and text[i + 1] != "\n":
            out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _include_argument(text: str) -> str | None:
    """What an ``Include <path>`` line names (the keyword in any case, as Slurm reads it), else None.
    The first letter also takes the Turkish dotted and dotless I, as a case-blind regex would."""
    if not (text[:1] in "iI\u0130\u0131" and text[1:7].lower() == "nclude"
            and text[7:8].isspace()):
        return None
    argument = text[7:].lstrip()
    return argument if argument and "\n" not in argument else None


def _token_at(text: str, pos: int) -> tuple[str, str, str, int] | None:
    """The ``Key=Value`` starting at ``pos`` as (key, operator, value, end), or None.

    A key is ``[A-Za-z0-9_.]+``; spaces or tabs may surround the operator (``=``, ``+=``, ``-=``);
    a value is ``"anything but quotes"`` or a run of characters that are neither whitespace nor
    quotes, and must end the line or be followed by whitespace. A value that runs into a quote
    after spaces is an empty value ending before the last space (the quoted rest is then the next
    token, and refused), as the pattern-matching reader this replaces did.
    """
    end = len(text)
    i = pos
    while i < end and text[i] in _KEY_CHARS:
        i += 1
    if i == pos:
        return None
    key = text[pos:i]
    while i < end and text[i] in " \t":
        i += 1
    if text.startswith("=", i):
        op = "="
    elif text.startswith(("+=", "-="), i):
        op = text[i:i + 2]
    else:
        return None
    after_op = i + len(op)
    start = after_op
    while start < end and text[start] in " \t":
        start += 1
    if start < end and text[start] == '"':
        close = text.find('"', start + 1)
        if close != -1 and (close + 1 == end or text[close + 1].isspace()):
            return key, op, text[start + 1:close], close + 1
    stop = start
    while stop < end and not text[stop].isspace() and text[stop] != '"':
        stop += 1
    if stop == end or text[stop].isspace():
        return key, op, text[start:stop], stop
    if start > after_op:
        return key, op, "", start - 1
    return None


def _strip_comment(raw: str) -> str:
    i = 0
    while i < len(raw):
        if raw[i] == "\\":
            i += 2  # the next character is escaped, ``\#`` included
            continue
        if raw[i] == "#":
            return raw[:i]
        i += 1
    return raw


def _logical_lines(path: PathName) -> Iterator[tuple[int, str]]:
    """(first physical line number, text) per logical line."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(path, None, f"cannot read configuration file: {e}") from None
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw)
        if not pending:
            start = number
        stripped = line.rstrip()
        backslashes = len(stripped) - len(stripped.rstrip("\\"))
        if backslashes % 2 == 1:
            # The joined text keeps whatever spacing the next line starts with.
            pending += stripped[:-1]
            continue
        yield start, _unescape(pending + line)
        pending = ""
    if pending:
        yield start, _unescape(pending)


def tokenize(text: str, path: PathName, line: int) -> list[Token]:
    tokens: list[Token] = []
    pos, end = 0, len(text)
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            return tokens
        found = _token_at(text, pos)
        if found is None:
            raise ConfigError(path, line, f"parsing error at: {text[pos:].strip()}")
        key, op, value, pos = found
        if op != "=":
            raise ConfigError(path, line, f"{key}{op} is not supported; use {key}=")
        tokens.append(Token(key, value, path, line))


class _Reader:
    """Reads a file and its Includes in order, one token list per non-empty logical line."""

    def __init__(self, conf_dir: str) -> None:
        self.conf_dir = conf_dir
        self.cluster_name: str | None = None  # for ``%c`` in Include paths

    def lines(self, path: PathName, depth: int) -> Iterator[list[Token]]:
        for number, text in _logical_lines(path):
            stripped = text.strip()
            if not stripped:
                continue
            include = _include_argument(stripped)
            if include is not None:
                yield from self._include(include, path, number, depth)
                continue
            tokens = tokenize(stripped, path, number)
            for tok in tokens:
                if tok.lower == "clustername":
                    self.cluster_name = tok.value.lower()
            yield tokens

    def _include(self, arg: str, path: PathName, number: int, depth: int) -> Iterator[list[Token]]:
        if depth >= _MAX_INCLUDE_DEPTH:
            raise ConfigError(path, number, "Include nested too deeply (an Include loop?)")
        target = arg.strip().strip('"')
        if "%c" in target:
            if self.cluster_name is None:
                raise ConfigError(path, number, "Include uses %c before ClusterName is set")
            target = target.replace("%c", self.cluster_name)
        full = os.path.join(self.conf_dir, target)   # an absolute target stays as it is
        if any(char in target for char in _GLOB_CHARS):
            import glob

            matches = sorted(glob.glob(full))
            if not matches:
                import logging

                logging.getLogger(__name__).warning("%s:%d: Include %s matches no file", path, number, target)
            for match in matches:
                yield from self.lines(match, depth + 1)
            return
        if not os.path.isfile(full):
            raise ConfigError(path, number, f"Include file not found: {full}")
        yield from self.lines(full, depth + 1)


def read_conf(path: PathName) -> Iterator[list[Token]]:
    """Tokens of ``path`` and everything it includes, one list per logical line, in order."""
    return _Reader(os.path.dirname(os.fspath(path))).lines(path, 0)
