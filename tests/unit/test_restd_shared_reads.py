"""pyslurm_restd.shared_reads: identical reads in flight together are answered once; a waiter
that leaves does not cancel the others; nothing is kept after the answer."""
from __future__ import annotations

import asyncio

from pyslurm_restd.envelope import Outcome
from pyslurm_restd.shared_reads import SharedReads


def test_concurrent_identical_reads_share_one_answer_and_others_do_not() -> None:
    async def scenario() -> tuple[list[Outcome], int, int]:
        reads, calls = SharedReads(), []
        gate = asyncio.Event()

        async def produce(key: str) -> Outcome:
            calls.append(key)
            await gate.wait()
            return Outcome(f'{{"n": {len(calls)}}}')

        waiters = [asyncio.ensure_future(reads.answer(k, lambda k=k: produce(k))) for k in ("a", "a", "a", "b")]
        await asyncio.sleep(0)
        leaving = waiters.pop(0)
        leaving.cancel()                       # its client hung up
        gate.set()
        answers = await asyncio.gather(*waiters)
        in_flight = reads.in_flight
        await reads.answer("a", lambda: produce("a"))   # after the answer: asked again
        return answers, len(calls), in_flight

    answers, produced, in_flight = asyncio.run(scenario())
    assert answers[0] == answers[1] and answers[0] != answers[2]
    assert (produced, in_flight) == (3, 0)


def test_a_failure_reaches_every_waiter() -> None:
    async def scenario() -> list[BaseException | Outcome]:
        reads = SharedReads()

        async def fail() -> Outcome:
            await asyncio.sleep(0.01)
            raise RuntimeError("controller gone")

        return await asyncio.gather(*(reads.answer("k", fail) for _ in range(3)), return_exceptions=True)

    results = asyncio.run(scenario())
    assert [str(r) for r in results] == ["controller gone"] * 3
