"""Preemption and priority on real Slurm and on pyslurm: preempt/partition_prio with a
REQUEUE and a CANCEL tier under a high tier, and the pending order of priority/multifactor with
--nice. One node of 2 CPUs: a job of -c 2 holds it."""
from __future__ import annotations

from typing import Iterator

import pytest

from .conftest import Config, pair_for
from .harness import Case, Pair, Run, Wait, case_ids, differs, report
from .real_slurm import NODE, Accounting

CONFIG = Config(extra=(
    "PreemptType=preempt/partition_prio",
    "PreemptMode=REQUEUE",
    "PriorityType=priority/multifactor",
    f"PartitionName=low Nodes={NODE} PriorityTier=1 PreemptMode=REQUEUE",
    f"PartitionName=cancel Nodes={NODE} PriorityTier=1 PreemptMode=CANCEL",
    f"PartitionName=high Nodes={NODE} PriorityTier=10",
))
LOW = "sbatch --parsable -p {part} -c 2 -o /dev/null --wrap 'sleep 300'"
HIGH = "sbatch --parsable -p high -c 2 -o /dev/null --wrap 'sleep 300'"

CASES = [
    Case("a high-tier job requeues a REQUEUE-tier job", (
        Run(LOW.format(part="low")),
        Wait("J1", ("RUNNING",)),
        Run(HIGH),
        Wait("J2", ("RUNNING",)),
        Wait("J1", ("PENDING",)),
        Run("scontrol show job {J1}", lines=r"^\s*(JobState|Requeue)="),
        Run("squeue -h -o '%i %P %T' -j {J1},{J2}"),
    )),
    Case("a high-tier job cancels a CANCEL-tier job: PREEMPTED", (
        Run(LOW.format(part="cancel")),
        Wait("J1", ("RUNNING",)),
        Run(HIGH),
        Wait("J2", ("RUNNING",)),
        Wait("J1", ("PREEMPTED",), accounting=True),
        Run("squeue -h -t all -o '%i %P %T %r' -j {J1}"),
        Run("sacct -X -n -P -o JobID,Partition,State -j {J1}"),
    )),
    pytest.param(Case("the exit code of a job preempted by cancel", (
        Run(LOW.format(part="cancel")),
        Wait("J1", ("RUNNING",)),
        Run(HIGH),
        Wait("J1", ("PREEMPTED",), accounting=True),
        Run("sacct -X -n -P -o JobID,State,ExitCode -j {J1}"),
    )), marks=differs("sacct ExitCode of a PREEMPTED (cancelled) job: Slurm 0:0, pyslurm 0:15")),
    Case("a --no-requeue job in the REQUEUE tier is cancelled instead", (
        Run("sbatch --parsable -p low -c 2 --no-requeue -o /dev/null --wrap 'sleep 300'"),
        Wait("J1", ("RUNNING",)),
        Run(HIGH),
        Wait("J2", ("RUNNING",)),
        Wait("J1", ("PREEMPTED",), accounting=True),
        Run("sacct -X -n -P -o JobID,Partition,State -j {J1}"),
    )),
    Case("pending order and reasons: --nice lowers a job below a later one", (
        Run("sbatch --parsable -c 2 -o /dev/null --wrap 'sleep 300'"),
        Wait("J1", ("RUNNING",)),
        Run("sbatch --parsable -c 2 --nice=100 -o /dev/null --wrap true"),
        Run("sbatch --parsable -c 2 -o /dev/null --wrap true"),
        Run("sh -c 'sleep 3'"),
        Run("squeue -h -t PD -o '%i %r' -j {J2},{J3}"),
    )),
]


@pytest.fixture(scope="module")
def pair(real_accounting: Accounting) -> Iterator[Pair]:
    with pair_for(real_accounting, CONFIG) as p:
        yield p


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_preemption_scenario(pair: Pair, case: Case) -> None:
    problems = pair.play(case)
    assert not problems, report(case, problems)
