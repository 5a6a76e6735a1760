"""The controller's scheduling loop (shell/controller.py run_scheduler): a stream of events runs
passes, but a long pass is followed by a pause three times as long, so passes over a long queue
take about a quarter of a core however fast events come; short passes keep their short gap."""
from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from pyslurm_ctld.shell import controller

from test_controller_shell import shell


def _passes_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pass_seconds: float, seconds: float) -> tuple[int, float]:
    """(passes run, their share of the time) while events wake the scheduler every millisecond."""
    busy: list[float] = []

    def slow_pass(state: object, now: int) -> list[object]:
        began = time.perf_counter()
        while time.perf_counter() - began < pass_seconds:
            pass                                   # a pass costs CPU, as a walk over a long queue does
        busy.append(time.perf_counter() - began)
        return []

    monkeypatch.setattr(controller, "schedule_pass", slow_pass)

    async def main() -> float:
        ctl, _, _, _ = shell(tmp_path)
        stop = asyncio.Event()
        loop = asyncio.ensure_future(ctl.run_scheduler(stop))
        began = time.perf_counter()
        while time.perf_counter() - began < seconds:
            ctl.wake_scheduler()                  # a submission's commit
            await asyncio.sleep(0.001)
        stop.set()
        ctl.wake_scheduler()
        await loop
        ctl.close()
        return time.perf_counter() - began

    elapsed = asyncio.run(main())
    return len(busy), sum(busy) / elapsed


def test_a_stream_of_events_gets_long_passes_a_quarter_of_the_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    passes, share = _passes_in(tmp_path, monkeypatch, pass_seconds=0.03, seconds=1.5)
    assert passes >= 3, passes                       # the scheduler still runs
    assert share < 0.35, share                       # was about 0.9: a pass after every event


def test_short_passes_follow_events_closely(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    passes, _ = _passes_in(tmp_path, monkeypatch, pass_seconds=0.0005, seconds=0.5)
    assert passes >= 10, passes                      # gaps of a few ms, not the 1 s periodic pass
