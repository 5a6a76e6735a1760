"""Daemon logging the way Slurm's daemons log.

Owns: the levels (SlurmctldDebug, SlurmdDebug, slurmdbd's DebugLevel: quiet, fatal, error,
info, verbose, debug, debug2..debug5, or their numbers 0-9), the line format
(`[2024-01-01T12:00:00.123] error: message`, local time with milliseconds, Slurm's
`error: `/`debug:  ` prefixes), where lines go (the configured log file, else stderr, which
systemd hands to journald; with `-D`, as Slurm's daemons, copied to stderr as well, so a unit
logs to its journal and to the file), reopening the file after logrotate moved it (SIGUSR2), and
applying new settings on reconfigure. Command-line `-v` and `-L` keep winning over the
configuration. Stdlib only.
"""
from __future__ import annotations

import logging
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# Python levels for Slurm's, in Slurm's order (the index is the numeric spelling).
VERBOSE = 15
LEVELS: dict[str, int] = {
    "quiet": logging.CRITICAL + 10, "fatal": logging.CRITICAL, "error": logging.ERROR, "info": logging.INFO,
    "verbose": VERBOSE, "debug": logging.DEBUG, "debug2": 9, "debug3": 8, "debug4": 7, "debug5": 6,
}
LEVEL_NAMES = tuple(LEVELS)
# What Slurm writes before the message at each level (info and verbose: nothing).
_PREFIX = {logging.CRITICAL: "fatal: ", logging.ERROR: "error: ", logging.WARNING: "warning: ",
           logging.DEBUG: "debug:  ", 9: "debug2: ", 8: "debug3: ", 7: "debug4: ", 6: "debug5: "}
for _name, _number in LEVELS.items():
    if _name != "quiet":
        logging.addLevelName(_number, _name.upper())


class SlurmFormatter(logging.Formatter):
    """`[2024-01-01T12:00:00.123] error: text` (Slurm's default LogTimeFormat, iso8601_ms)."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(record.created))
        line = f"[{stamp}.{int(record.msecs):03d}] {_PREFIX.get(record.levelno, '')}{record.getMessage()}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


@dataclass(frozen=True, slots=True)
class _CommandLine:
    verbose: int            # -v count: each one level more than configured
    log_file: str | None    # -L: wins over the configured file
    foreground: bool = False  # -D: lines written to a file are copied to stderr too


_command_line = _CommandLine(0, None)
_handler: logging.Handler | None = None   # ours: the log file, or stderr
_stderr_copy: logging.Handler | None = None   # -D with a log file: stderr as well


def setup_logging(level_name: str, configured_file: str | None, verbose: int = 0,
                  command_line_file: str | None = None, foreground: bool = False) -> None:
    """First configuration at start: the configured level and file, and `-v`/`-L`/`-D`, which
    keep winning over the configuration on every later `apply`."""
    global _command_line
    _command_line = _CommandLine(verbose, command_line_file, foreground)
    apply(level_name, configured_file)


def apply(level_name: str, configured_file: str | None) -> None:
    """(Re)apply the configured level and log file; the command line still wins."""
    names = list(LEVEL_NAMES)
    index = names.index(level_name.lower()) if level_name.lower() in LEVELS else names.index("info")
    index = min(len(names) - 1, index + _command_line.verbose)
    path = _command_line.log_file or configured_file
    global _handler
    handler: logging.Handler
    if path and isinstance(_handler, ReopeningFileHandler) and _handler.baseFilename == str(Path(path).absolute()):
        handler = _handler
    elif path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        handler = ReopeningFileHandler(path)
    elif _handler is not None and not isinstance(_handler, logging.FileHandler):
        handler = _handler
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(SlurmFormatter())
    if handler is not _handler and _handler is not None:
        _handler.close()
    _handler = handler
    global _stderr_copy
    if _command_line.foreground and isinstance(handler, logging.FileHandler):
        if _stderr_copy is None:
            _stderr_copy = logging.StreamHandler(sys.stderr)
            _stderr_copy.setFormatter(SlurmFormatter())
    else:
        _stderr_copy = None
    root = logging.getLogger()
    root.handlers[:] = [handler] if _stderr_copy is None else [handler, _stderr_copy]
    root.setLevel(LEVELS[names[index]])


def reopen() -> None:
    """SIGUSR2: logrotate moved the file away; write to a fresh one at the configured path."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, ReopeningFileHandler):
            handler.reopen()


class ReopeningFileHandler(logging.FileHandler):
    def reopen(self) -> None:
        self.acquire()
        try:
            if self.stream is not None:
                self.stream.close()
            self.stream = self._open()
        finally:
            self.release()
