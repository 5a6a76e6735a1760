"""Fixtures shared by the unit tests."""
from __future__ import annotations

import time
from typing import Iterator

import pytest
from accounting_backends import accounting_url, store  # noqa: F401 - the store tests' backend fixtures


@pytest.fixture()
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Pin local time to UTC (and the default time format) so timestamps are predictable."""
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.delenv("SLURM_TIME_FORMAT", raising=False)
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
