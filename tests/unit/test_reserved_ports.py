"""MpiParams=ports= read as Slurm reads it, and SLURM_STEP_RESV_PORTS written as Slurm writes it."""
from __future__ import annotations

from pyslurm_ctld.core.reserved_ports import port_range
from pyslurm_ctld.model.job import JobState, Step
from pyslurm_ctld.translate.job_env import ranged


def test_port_range() -> None:
    assert port_range("ports=12000-12999") == range(12000, 13000)
    assert port_range("other=1,ports=5-6") == range(5, 7)
    assert port_range(None) is None and port_range("ports=9-1") is None and port_range("ports=1-99999") is None


def test_ranged_ports() -> None:
    assert ranged([12005, 12000, 12002, 12001]) == "12000-12002,12005"
    assert ranged([7]) == "7"


def test_a_steps_ports_survive_the_journal() -> None:
    step = Step(step_id=1, name="a", nodes=("n1",), tasks_per_node=(1,), cpu_ids=((0,),), start_time=0,
                resv_ports=(12000, 12001), state=JobState.RUNNING)
    import dataclasses
    import json

    data = json.loads(json.dumps(dataclasses.asdict(step), default=str))
    assert Step.from_dict(data).resv_ports == (12000, 12001)
    del data["resv_ports"]
    assert Step.from_dict(data).resv_ports == ()
