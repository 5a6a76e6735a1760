"""The controller's scheduling loop (shell/controller.py run_scheduler): a stream of events runs
passes, but a long pass is followed by a pause three times as long, so passes over a long queue
take about a quarter of a core however fast events come; short passes keep their short gap."""
from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path

import pytest

from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.model.events import BatchFinished
from pyslurm_ctld.model.job import JobState
from pyslurm_ctld.shell import controller
from tests.builders import ALICE, RAW, USERS

from test_controller_shell import settled, shell


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


def test_a_batch_scripts_end_starts_the_next_job_without_the_burst_wait_and_before_its_line_is_on_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Only a pass that skips the wait for a burst of submissions can start the next job here.
    monkeypatch.setattr(controller, "SCHED_DEBOUNCE", 3600.0)

    async def main() -> None:
        ctl, journal, _, links = shell(tmp_path)
        whole_node = dataclasses.replace(RAW, cpus_per_task=8)   # n2 is the only node with 8 CPUs
        first = submission(ctl.state, whole_node, ALICE, ALICE, USERS[ALICE], USERS[ALICE], False, 100)
        await ctl.commit(first)
        second = submission(ctl.state, whole_node, ALICE, ALICE, USERS[ALICE], USERS[ALICE], False, 100)
        await ctl.commit(second)
        for event in schedule_pass(ctl.state, 200):
            await ctl.commit(event)
        assert ctl.state.jobs[first.job.job_id].state is JobState.RUNNING
        assert ctl.state.jobs[second.job.job_id].state is JobState.PENDING
        scheduler = asyncio.ensure_future(ctl.run_scheduler(asyncio.Event()))
        journal.hold = True
        ended = asyncio.ensure_future(ctl.staged(BatchFinished(first.job.job_id, 0, 0, False, False, 300)))

        async def second_started() -> None:
            while ctl.state.jobs[second.job.job_id].state is JobState.PENDING:
                await asyncio.sleep(0.001)

        await asyncio.wait_for(second_started(), 60)   # TimeoutError: it waits for the burst
        assert journal.kinds()[-2:] == ["finished", "started"]     # one after the other, neither on disk
        assert ("launch", "n2", second.job.job_id) not in links.calls
        journal.flush()
        await ended
        await settled(ctl)
        assert ("launch", "n2", second.job.job_id) in links.calls  # once both lines are on disk
        scheduler.cancel()   # in its hour-long wait for a burst
        ctl.close()

    asyncio.run(main())
