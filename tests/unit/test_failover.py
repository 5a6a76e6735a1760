"""Backup controllers: which SlurmctldHost a daemon is, the state lock, the clients' order of
trying controllers, and the agent's route to one controller (scontrol ping/takeover)."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import grpc
import pytest

from pyslurm_common.agent.protocol import controller_target, to_controller
from pyslurm_common.client_settings import controller_names, controller_role
from pyslurm_common.config import ControllerHost
from pyslurm_common.controller_channel import STANDBY_DETAIL, FailoverChannel, Patience, attempt_order
from pyslurm_common.rpc_client import NotDelivered
from pyslurm_ctld.failover import StateLock, my_index, poll_interval, takeover_due

HOSTS = (ControllerHost("head1", "10.0.0.1"), ControllerHost("head2", "10.0.0.2"))


def test_one_controller_is_always_the_primary() -> None:
    assert my_index(HOSTS[:1], "anything", lambda addr: False) == 0


def test_a_controller_is_found_by_host_name_before_address() -> None:
    assert my_index(HOSTS, "head2.lab.example", lambda addr: addr == "10.0.0.1") == 1


def test_a_controller_is_found_by_its_local_address() -> None:
    assert my_index(HOSTS, "box", lambda addr: addr == "10.0.0.2") == 1


def test_a_host_that_is_no_controller_is_refused() -> None:
    with pytest.raises(ValueError, match=r"this host \(box\) is none of the SlurmctldHost entries \(head1, head2\)"):
        my_index(HOSTS, "box", lambda addr: False)


def test_roles_as_scontrol_ping_names_them() -> None:
    assert [controller_role(i, 2) for i in range(2)] == ["primary", "backup"]
    assert [controller_role(i, 3) for i in range(3)] == ["primary", "backup1", "backup2"]


def test_scontrol_reads_the_controller_names_without_checking_the_rest(tmp_path: Path) -> None:
    conf = tmp_path / "slurm.conf"
    conf.write_text("SlurmctldHost=head1(10.0.0.1)\nSlurmctldHost=head2\nKillWait=soon\n")
    assert controller_names(str(conf)) == ["head1", "head2"]
    conf.write_text("ControlMachine=old\nBackupController=old2\n")
    assert controller_names(str(conf)) == ["old", "old2"]


def test_takeover_after_slurmctld_timeout_without_a_controller_in_charge() -> None:
    assert not takeover_due(100.0, 219.9, 120)
    assert takeover_due(100.0, 220.0, 120)
    assert poll_interval(120) == 10.0 and poll_interval(2) == 0.5 and poll_interval(0) == 0.2


def test_only_one_holder_of_the_state_lock(tmp_path: Path) -> None:
    first, second = StateLock(tmp_path), StateLock(tmp_path)
    assert first.try_acquire("head1")
    assert not second.try_acquire("head2")
    assert first.holder().startswith("head1 pid ")
    first.release()
    assert second.try_acquire("head2")
    assert second.holder().startswith("head2 pid ")
    second.release()


def test_attempt_order_starts_with_the_controller_that_answered_last() -> None:
    assert attempt_order(3, 0) == [0, 1, 2]
    assert attempt_order(3, 2) == [2, 0, 1]


GONE = "gone"          # unreachable: the request reached no controller
STANDBY = "standby"    # a backup not in charge (yet)


def _error(code: grpc.StatusCode) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details=code.name)


def _outcome_error(outcome: Any) -> grpc.aio.AioRpcError | None:
    if outcome == GONE:
        return NotDelivered(grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), "connect failure")
    if outcome == STANDBY:
        return grpc.aio.AioRpcError(grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(),
                                    STANDBY_DETAIL)
    return _error(outcome) if isinstance(outcome, grpc.StatusCode) else None


class FakeChannel:
    """A controller that is in charge (answers), standing by, gone, or failing (a status code);
    `outcomes[address]` may be a list, one outcome per call."""

    def __init__(self, address: str, outcomes: dict[str, Any]) -> None:
        self.address = address
        self.outcomes = outcomes
        self.calls: list[str] = []

    def unary_unary(self, method: str, *args: Any) -> Any:
        async def call(request: Any, **kwargs: Any) -> Any:
            self.calls.append(method)
            outcome = self.outcomes[self.address]
            if isinstance(outcome, list):
                outcome = outcome.pop(0)
            error = _outcome_error(outcome)
            if error is not None:
                raise error
            return f"{outcome}:{request}"
        return call


def test_calls_fail_over_to_the_controller_in_charge_and_stay_there() -> None:
    outcomes: dict[str, Any] = {"a": GONE, "b": "from-b"}
    made: dict[str, FakeChannel] = {}

    def make(address: str) -> Any:
        made[address] = FakeChannel(address, outcomes)
        return made[address]

    channel = FailoverChannel(["a", "b"], make_channel=make)
    ping = channel.unary_unary("/pyslurm.Controller/Ping")
    assert asyncio.run(ping("x", timeout=1)) == "from-b:x"
    assert channel.preferred == 1
    assert asyncio.run(ping("y")) == "from-b:y"
    assert (len(made["a"].calls), len(made["b"].calls)) == (1, 2)   # b is tried first now
    outcomes.update(a="from-a", b=STANDBY)          # the primary took control back
    assert asyncio.run(ping("z")) == "from-a:z"
    assert channel.preferred == 0


def test_an_answer_that_is_an_error_is_not_sent_elsewhere() -> None:
    outcomes: dict[str, Any] = {"a": grpc.StatusCode.DEADLINE_EXCEEDED, "b": "from-b"}
    channel = FailoverChannel(["a", "b"], make_channel=lambda address: FakeChannel(address, outcomes))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        asyncio.run(channel.unary_unary("/pyslurm.Controller/SubmitBatchJob")("job"))
    assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED


def test_every_controller_unavailable_reports_the_first_refusal() -> None:
    outcomes: dict[str, Any] = {"a": GONE, "b": STANDBY}
    channel = FailoverChannel(["a", "b"], make_channel=lambda address: FakeChannel(address, outcomes))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        asyncio.run(channel.unary_unary("/pyslurm.Controller/GetJobs")("q"))
    assert (caught.value.code(), caught.value.details()) == (grpc.StatusCode.UNAVAILABLE, "connect failure")


def test_a_connection_lost_once_the_request_went_out_is_not_sent_elsewhere() -> None:
    """UNAVAILABLE after the controller proved itself: it may have acted (sbatch must not submit twice)."""
    outcomes: dict[str, Any] = {"a": grpc.StatusCode.UNAVAILABLE, "b": "from-b"}
    made: dict[str, FakeChannel] = {}

    def make(address: str) -> Any:
        made[address] = FakeChannel(address, outcomes)
        return made[address]

    channel = FailoverChannel(["a", "b"], make_channel=make, patience=Patience())
    with pytest.raises(grpc.aio.AioRpcError):
        asyncio.run(channel.unary_unary("/pyslurm.Controller/SubmitBatchJob")("job"))
    assert made["b"].calls == []


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now


def _patient(outcomes: dict[str, Any], message_timeout: int = 10, slurmctld_timeout: int = 120
             ) -> tuple[FailoverChannel, FakeTime]:
    fake = FakeTime()
    patience = Patience(message_timeout, slurmctld_timeout, sleep=fake.sleep, clock=fake.clock)
    return FailoverChannel(["a", "b"], lambda address: FakeChannel(address, outcomes), patience), fake


def test_no_controller_reachable_is_tried_message_timeout_times_a_second_apart() -> None:
    """Slurm 22.05's client: MessageTimeout rounds over every controller, 1 s apart (sinfo against
    a dead port gave up after 9.0 s with MessageTimeout=10, 2.0 s with MessageTimeout=3)."""
    channel, fake = _patient({"a": GONE, "b": GONE}, message_timeout=3)
    with pytest.raises(NotDelivered):
        asyncio.run(channel.unary_unary("/pyslurm.Controller/GetJobs")("q"))
    assert fake.slept == [1.0, 1.0]


def test_a_call_waits_while_the_backup_stands_by_and_reaches_it_once_in_charge() -> None:
    """The primary is gone and the backup has not taken over yet (SlurmctldTimeout): the call goes
    on past MessageTimeout rounds and is answered by the backup once it is in charge."""
    outcomes: dict[str, Any] = {"a": GONE, "b": [STANDBY] * 5 + ["from-b"]}
    channel, fake = _patient(outcomes, message_timeout=2, slurmctld_timeout=4)
    assert asyncio.run(channel.unary_unary("/pyslurm.Controller/SubmitBatchJob")("job")) == "from-b:job"
    assert (fake.slept, channel.preferred) == ([1.0] * 5, 1)


def test_a_backup_that_stops_standing_by_is_given_message_timeout_rounds_to_serve() -> None:
    """After `scontrol takeover` the backup leaves its standby server and starts serving: for a
    moment nothing listens on either controller."""
    outcomes: dict[str, Any] = {"a": GONE, "b": [STANDBY] * 2 + [GONE] * 4 + ["from-b"]}
    channel, fake = _patient(outcomes, message_timeout=5, slurmctld_timeout=2)
    assert asyncio.run(channel.unary_unary("/pyslurm.Controller/GetJobs")("q")) == "from-b:q"
    assert fake.slept == [1.0] * 6


def test_a_backup_standing_by_is_waited_for_up_to_one_and_a_half_slurmctld_timeouts() -> None:
    channel, fake = _patient({"a": GONE, "b": STANDBY}, message_timeout=2, slurmctld_timeout=4)
    with pytest.raises(NotDelivered):
        asyncio.run(channel.unary_unary("/pyslurm.Controller/GetJobs")("q"))
    assert fake.now == 5.0      # the next round would begin at 6 s = 1.5 x SlurmctldTimeout


def test_the_agent_routes_a_method_to_one_controller() -> None:
    assert controller_target(to_controller(1, "Ping")) == ("/pyslurm.Controller/Ping", 1)
    assert controller_target("/pyslurm.Controller/Ping") == ("/pyslurm.Controller/Ping", None)
    assert controller_target("/pyslurm.Accounting@1/Ping") == ("/pyslurm.Accounting@1/Ping", None)
