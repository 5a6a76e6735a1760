"""Node features and --constraint (pyslurm_ctld/sched/features.py), at submission and in the scheduler.

Spec: cli-sbatch-srun-salloc.md (-C: `a`, `a&b`, `a|b`; `Invalid feature specification`),
config-slurm-conf.md §4 (Features=, Weight=: lower weight preferred).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pyslurm_common.errors import Strerror
from pyslurm_ctld.sched import features
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.model.job import JobState, Reason
from pyslurm_ctld.sched.scheduler import Start, schedule

from tests.builders import RAW, error_of, make_manager, run_job, submit
from test_scheduler import by_name, job, node, partition

CONF = """\
ClusterName=lab
SlurmctldHost=head
NodeName=n1 CPUs=4 RealMemory=4000 Features=intel,ib Weight=10
NodeName=n2 CPUs=4 RealMemory=4000 Features=amd Weight=5
NodeName=n3 CPUs=4 RealMemory=4000 Weight=1
PartitionName=debug Nodes=n1,n2,n3 Default=YES
"""


@pytest.mark.parametrize(("text", "parsed"), [
    ("", ()), ("intel", (("intel",),)), ("intel&ib", (("intel", "ib"),)), ("intel|amd", (("intel",), ("amd",))),
    ("intel&ib|amd", (("intel", "ib"), ("amd",))),
])
def test_constraints_parse_with_and_binding_tighter_than_or(text: str, parsed: features.Constraint) -> None:
    assert features.parse(text) == parsed


@pytest.mark.parametrize("text", ["intel&", "|amd", "[intel|amd]", "intel*2", "a b"])
def test_malformed_constraints_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        features.parse(text)


def test_a_node_satisfies_a_constraint_on_its_own() -> None:
    have = frozenset({"intel", "ib"})
    assert features.satisfied((), frozenset())
    assert features.satisfied(features.parse("intel&ib"), have)
    assert not features.satisfied(features.parse("intel&amd"), have)
    assert features.satisfied(features.parse("amd|ib"), have)


def test_submission_refuses_unknown_or_malformed_features_with_slurms_words(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, conf=CONF)
    for text in ("gpu", "intel&gpu", "intel|gpu", "intel&"):
        err = error_of(submission, mgr, dataclasses.replace(RAW, features=text), 1000, 1000, "alice", "alice",
                       False, 100)
        assert err.strerror == Strerror.INVALID_FEATURE
    # Known features no single node has together: no node could ever run it.
    err = error_of(submission, mgr, dataclasses.replace(RAW, features="intel&amd"), 1000, 1000, "alice", "alice",
                   False, 100)
    assert err.strerror == Strerror.BAD_NODE_CONFIG


def test_jobs_run_only_on_nodes_with_their_features_and_otherwise_on_the_lowest_weight(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, conf=CONF)
    assert run_job(mgr, features="intel&ib").allocation.nodes == ("n1",)      # type: ignore[union-attr]
    assert run_job(mgr, features="amd|ib").allocation.nodes == ("n2",)        # type: ignore[union-attr]
    assert run_job(mgr).allocation.nodes == ("n3",)                           # type: ignore[union-attr]
    busy = run_job(mgr, features="intel", cpus_per_task=3)
    assert busy.allocation.nodes == ("n1",)                                   # type: ignore[union-attr]
    waiting = submit(mgr, features="intel", cpus_per_task=2)
    schedule_pass(mgr, 300)
    assert mgr.jobs[waiting.job_id].state is JobState.PENDING
    assert mgr.jobs[waiting.job_id].reason is Reason.RESOURCES


def test_the_scheduler_prefers_low_weights_then_best_fit() -> None:
    nodes = by_name(node("heavy"), node("light", free_cpus=4), node("lighter", free_cpus=1))
    nodes = {name: dataclasses.replace(cap, weight={"heavy": 9, "light": 1, "lighter": 1}[name])
             for name, cap in nodes.items()}
    decisions = schedule([job(1)], nodes, {"batch": partition("batch", ["heavy", "light", "lighter"])})
    assert isinstance(decisions[0], Start) and decisions[0].allocation.nodes == ("lighter",)


def test_batch_features_are_a_subset_of_the_constraint() -> None:
    from pyslurm_common.errors import SlurmError

    from pyslurm_ctld.sched.features import batch_subset

    have = frozenset({"knl", "haswell"})
    batch_subset("haswell", "knl|haswell", have)
    batch_subset("knl|bogus", "knl|bogus", have)     # of alternatives one that exists is enough
    for batch, constraint in (("haswell", ""), ("haswell", "knl"), ("bogus", "bogus"), ("a[", "a")):
        with pytest.raises(SlurmError, match="--batch option is invalid"):
            batch_subset(batch, constraint, have)
