"""Daemon logging (pyslurm_common/daemon_log.py): Slurm's levels and line format, the log file
or stderr, reopening after logrotate, and new settings on reconfigure.

Spec: config-slurm-conf.md §3 (SlurmctldLogFile/SlurmdLogFile, SlurmctldDebug/SlurmdDebug:
quiet, fatal, error, info, verbose, debug, debug2..debug5).
"""
from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common import daemon_log

LINE = re.compile(r"^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\] (.*)$")
log = logging.getLogger("pyslurm_ctld.test")


@pytest.fixture(autouse=True)
def restore_root_logger() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers:
        if handler not in handlers:
            handler.close()
    root.handlers[:], root.level = handlers, level


def messages(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    assert all(LINE.match(line) for line in lines), lines
    return [LINE.match(line).group(1) for line in lines]  # type: ignore[union-attr]


def emit_every_level() -> None:
    log.critical("c")
    log.error("e")
    log.warning("w")
    log.info("i")
    log.log(daemon_log.VERBOSE, "v")
    log.debug("d")
    log.log(9, "d2")
    log.log(6, "d5")


@pytest.mark.parametrize("level,expected", [
    ("quiet", []),
    ("fatal", ["fatal: c"]),
    ("error", ["fatal: c", "error: e"]),
    ("info", ["fatal: c", "error: e", "warning: w", "i"]),
    ("verbose", ["fatal: c", "error: e", "warning: w", "i", "v"]),
    ("debug", ["fatal: c", "error: e", "warning: w", "i", "v", "debug:  d"]),
    ("debug2", ["fatal: c", "error: e", "warning: w", "i", "v", "debug:  d", "debug2: d2"]),
    ("debug5", ["fatal: c", "error: e", "warning: w", "i", "v", "debug:  d", "debug2: d2", "debug5: d5"]),
])
def test_levels_and_slurms_line_format(tmp_path: Path, level: str, expected: list[str]) -> None:
    daemon_log.setup_logging(level, str(tmp_path / "d.log"))
    emit_every_level()
    assert messages(tmp_path / "d.log") == expected


def test_each_v_raises_the_level_by_one_and_survives_reconfigure(tmp_path: Path) -> None:
    daemon_log.setup_logging("info", str(tmp_path / "d.log"), verbose=2)
    assert logging.getLogger().level == logging.DEBUG
    daemon_log.apply("error", str(tmp_path / "d.log"))
    assert logging.getLogger().level == daemon_log.VERBOSE


def test_without_a_file_lines_go_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    daemon_log.setup_logging("info", None)
    log.error("to journald")
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and LINE.match(err[0]) and err[0].endswith("] error: to journald")


def test_with_D_lines_go_to_the_file_and_to_stderr_after_reconfigure_too(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Slurm's -D: "Error and debug messages will be copied to stderr" (slurmd(8)); the units run
    # the daemons with -D, so their journal has the lines of the configured log file.
    daemon_log.setup_logging("info", str(tmp_path / "a.log"), foreground=True)
    log.error("one")
    daemon_log.apply("info", str(tmp_path / "b.log"))
    log.info("two")
    assert messages(tmp_path / "a.log") == ["error: one"] and messages(tmp_path / "b.log") == ["two"]
    err = capsys.readouterr().err.splitlines()
    assert [LINE.match(line).group(1) for line in err] == ["error: one", "two"]  # type: ignore[union-attr]


def test_without_D_a_file_takes_every_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    daemon_log.setup_logging("info", str(tmp_path / "a.log"))
    log.error("only here")
    assert messages(tmp_path / "a.log") == ["error: only here"] and capsys.readouterr().err == ""


def test_reopen_writes_to_a_fresh_file_after_logrotate_moved_it(tmp_path: Path) -> None:
    path = tmp_path / "log" / "pyslurmctld.log"
    daemon_log.setup_logging("info", str(path))
    log.info("before")
    path.rename(tmp_path / "pyslurmctld.log.1")
    log.info("still into the moved file")
    daemon_log.reopen()
    log.info("after")
    assert messages(tmp_path / "pyslurmctld.log.1") == ["before", "still into the moved file"]
    assert messages(path) == ["after"]


def test_reconfigure_moves_to_a_new_file_and_the_command_line_file_wins(tmp_path: Path) -> None:
    daemon_log.setup_logging("info", str(tmp_path / "a.log"))
    log.info("one")
    daemon_log.apply("debug", str(tmp_path / "b.log"))
    log.debug("two")
    assert messages(tmp_path / "a.log") == ["one"] and messages(tmp_path / "b.log") == ["debug:  two"]
    daemon_log.setup_logging("info", str(tmp_path / "a.log"), command_line_file=str(tmp_path / "cli.log"))
    daemon_log.apply("info", str(tmp_path / "c.log"))
    log.info("three")
    assert messages(tmp_path / "cli.log") == ["three"] and not (tmp_path / "c.log").exists()
