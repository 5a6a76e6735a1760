"""loop_supervisor.py: the first loop to die ends the group, naming itself; an orderly end does not."""
from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from pathlib import Path

import pytest

from pyslurm_common import daemon_runtime
from pyslurm_common.loop_supervisor import LoopDied, LoopSupervisor


async def forever(ticks: list[str], name: str) -> None:
    while True:
        ticks.append(name)
        await asyncio.sleep(0.001)


async def fails_after(count: int) -> None:
    for _ in range(count):
        await asyncio.sleep(0.001)
    raise RuntimeError("boom")


def test_a_dying_loop_ends_the_group_and_cancels_the_others() -> None:
    async def main() -> tuple[LoopDied, bool, list[bool]]:
        stop, ticks = asyncio.Event(), []
        supervisor = LoopSupervisor(stop)
        seen_alive: list[bool] = []

        async def watch() -> None:
            while True:
                seen_alive.append(supervisor.alive())
                await asyncio.sleep(0.001)

        watcher = asyncio.create_task(watch())
        with pytest.raises(LoopDied) as caught:
            await supervisor.run({"ticker": forever(ticks, "t"), "periodic checks": fails_after(5)},
                                 until=asyncio.sleep(60))
        watcher.cancel()
        count = len(ticks)
        await asyncio.sleep(0.01)
        assert len(ticks) == count            # the other loop was cancelled
        return caught.value, supervisor.alive(), seen_alive

    died, alive_after, seen_alive = asyncio.run(main())
    assert str(died) == "background loop 'periodic checks' died: RuntimeError: boom"
    assert died.name == "periodic checks"
    assert True in seen_alive and alive_after   # alive while running; a new group may start afterwards


def test_a_loop_that_returns_while_not_stopping_is_a_fault() -> None:
    async def returns() -> None:
        await asyncio.sleep(0.001)

    async def main() -> None:
        await LoopSupervisor(asyncio.Event()).run({"scheduler": returns()}, until=asyncio.sleep(60))

    with pytest.raises(LoopDied, match="'scheduler' died: returned while the daemon was not stopping"):
        asyncio.run(main())


def test_until_or_stop_end_the_loops_in_order() -> None:
    async def main() -> None:
        stop, ticks = asyncio.Event(), []

        async def until_stop(name: str) -> None:
            while not stop.is_set():
                ticks.append(name)
                await asyncio.sleep(0.001)

        async def stop_soon() -> None:
            await asyncio.sleep(0.02)
            stop.set()
            await asyncio.sleep(0.01)     # the loops end on their own meanwhile

        supervisor = LoopSupervisor(stop)
        await supervisor.run({"a": until_stop("a"), "b": forever(ticks, "b")}, until=stop_soon())
        assert {"a", "b"} <= set(ticks)

    asyncio.run(main())


def test_the_watchdog_is_fed_only_while_every_check_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify.sock"))
    sock.setblocking(False)
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify.sock"))
    monkeypatch.setenv("WATCHDOG_USEC", "20000")          # a ping every 10 ms
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    monkeypatch.setattr(daemon_runtime, "_watchdog_checks", [])
    loops_alive, pings = [True], []

    def drain() -> int:
        count = 0
        with contextlib.suppress(BlockingIOError):
            while True:
                count += sock.recv(4096) == b"WATCHDOG=1"
        return count

    async def serve(stop: asyncio.Event) -> None:
        daemon_runtime.feed_watchdog_while(lambda: loops_alive[0])
        await asyncio.sleep(0.1)
        loops_alive[0] = False
        pings.append(drain())
        await asyncio.sleep(0.1)
        pings.append(drain())

    daemon_runtime.run_until_signalled(serve)
    assert pings[0] >= 3 and pings[1] == 0, pings
