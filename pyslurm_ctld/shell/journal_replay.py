"""Replaying the journal at start, with the events that no longer apply set aside.

Every journaled event applied once, live (the controller applies an event before it journals it).
One that fails on replay (a bug fixed or introduced since, an edited file) must not stop the
controller from starting, which would strand every job at every start: it is logged on one line
(job id, event kind, error), appended with its error to `journal.set-aside.jsonl` next to the
journal (fsync'd: kept for a person to look at, never lost) and skipped; the replay goes on.
The compaction after the replay then leaves it out of the journal.

Fatal (JournalError, from journal.py): a journal that cannot be read back as written.
"""
from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .shell_ports import JournalPort

log = logging.getLogger(__name__)

SET_ASIDE_NAME = "journal.set-aside.jsonl"


@dataclass(frozen=True, slots=True)
class Replayed:
    applied: int
    set_aside: int


def replay(journal: JournalPort, apply: Callable[[dict[str, Any]], object], now: int) -> Replayed:
    """Apply every event of `journal` through `apply`; set aside those that raise."""
    applied = set_aside = 0
    target = journal.path.parent / SET_ASIDE_NAME
    for data in journal.replay():
        try:
            apply(data)
        except Exception as exc:     # whatever one event does wrong, the others still count
            _set_aside(target, data, exc, now)
            set_aside += 1
        else:
            applied += 1
    return Replayed(applied, set_aside)


def job_id_of(data: dict[str, Any]) -> object:
    """The job an event is about, as journaled ("?" when it names none)."""
    job = data.get("job")
    nested = job.get("job_id") if isinstance(job, dict) else None
    return data.get("job_id") or data.get("array_job_id") or nested or "?"


def _set_aside(target: Path, data: dict[str, Any], exc: Exception, now: int) -> None:
    error = " ".join(f"{type(exc).__name__}: {exc}".split())   # one line, whatever the message holds
    record = json.dumps({"set_aside_at": now, "error": error, "event": data}, separators=(",", ":")) + "\n"
    with os.fdopen(os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "ab") as file:
        file.write(record.encode())
        file.flush()
        os.fsync(file.fileno())
    log.error("job=%s journal event '%s' does not apply, skipped and kept in %s: %s",
              job_id_of(data), data.get("kind", "?"), target, error)
