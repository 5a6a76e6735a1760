"""The controller's OpenMetrics sets (pyslurm_ctld.rpc.metrics) and their text (pyslurm_restd.openmetrics)."""
from __future__ import annotations

from pathlib import Path

from pyslurm_common.config import load_config
from pyslurm_common.rpc import ctld_pb2
from pyslurm_ctld.rpc import metrics
from pyslurm_ctld.model.job import JobState
from pyslurm_restd.openmetrics import render


def _job(state: JobState, partition: str = "debug", user: str = "alice", account: str = "lab", cpus: int = 0,
         gpus: int = 0, held: bool = False, min_nodes: int = 1) -> metrics.JobFacts:
    return metrics.JobFacts(state=state, completing=False, held=held, partition=partition, user=user,
                            account=account, cpus=cpus, memory_mb=cpus * 100, gpus=gpus, nodes=1 if cpus else 0,
                            min_nodes=min_nodes, started=state is not JobState.PENDING)


def _values(gauges: list[ctld_pb2.Gauge]) -> dict[tuple[str, str], float]:
    return {(g.name, g.label_value): g.value for g in gauges}


FACTS = [_job(JobState.RUNNING, cpus=4, gpus=1), _job(JobState.PENDING, held=True, min_nodes=3),
         _job(JobState.PENDING, user="bob", min_nodes=2), _job(JobState.COMPLETED, partition="gpu")]


def test_job_counters_every_name_present() -> None:
    values = _values(metrics.jobs(FACTS))
    assert values[("jobs", "")] == 4 and values[("jobs_pending", "")] == 2 and values[("jobs_hold", "")] == 1
    assert values[("jobs_cpus_alloc", "")] == 4 and values[("jobs_gpus_alloc", "")] == 1
    assert values[("jobs_memory_alloc", "")] == 400 * 1024 * 1024
    assert values[("jobs_finished", "")] == 1 and values[("jobs_started", "")] == 2
    assert values[("jobs_bootfail", "")] == 0          # present though nothing counts
    assert len(values) == len(metrics.JOB_COUNTERS)


def test_users_and_accounts_are_labelled() -> None:
    values = _values(metrics.users_accounts(FACTS))
    assert values[("user_jobs_pending", "alice")] == 1 and values[("user_jobs_pending", "bob")] == 1
    assert values[("account_jobs", "lab")] == 4
    assert {g.label for g in metrics.users_accounts(FACTS)} == {"username", "account"}


def test_nodes_and_partitions() -> None:
    node = ctld_pb2.NodeInfo(name="n1", state="MIXED", flags=["DRAIN"], cpus=8, alloc_cpus=4, real_memory_mb=1000,
                             alloc_memory_mb=400, free_memory_mb=500, gres="gpu:a100:2", gres_used="gpu:a100:1(IDX:0)")
    values = _values(metrics.nodes([node]))
    assert values[("node_cpus_alloc", "n1")] == 4 and values[("node_gpus", "n1")] == 2
    assert values[("node_gpus_alloc", "n1")] == 1 and values[("node_memory_bytes", "n1")] == 1000 * 1024 * 1024
    assert values[("nodes_mixed", "")] == 1 and values[("nodes_draining", "")] == 1 and values[("nodes", "")] == 1
    part = ctld_pb2.PartitionInfo(name="debug", nodes=["n1"], total_cpus=8)
    values = _values(metrics.partitions([part], [node], FACTS))
    assert values[("partition_jobs_pending", "debug")] == 2 and values[("partition_gpus", "debug")] == 2
    assert values[("partition_jobs_max_job_nodes", "debug")] == 3
    assert values[("partition_jobs_max_job_nodes_nohold", "debug")] == 2
    assert values[("partitions", "")] == 1


def test_private_data_limits_who_reads(tmp_path: Path) -> None:
    def cfg(extra: str) -> object:
        conf = tmp_path / "slurm.conf"
        conf.write_text(f"ClusterName=c\nSlurmctldHost=h\n{extra}\nNodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n")
        return load_config(conf)
    assert metrics.may_read(cfg(""), "alice", False)                                        # type: ignore[arg-type]
    assert not metrics.may_read(cfg("PrivateData=jobs"), "alice", False)                    # type: ignore[arg-type]
    assert metrics.may_read(cfg("PrivateData=jobs"), "root", True)                          # type: ignore[arg-type]
    assert metrics.may_read(cfg("PrivateData=jobs\nMetricsAuthUsers=alice"), "alice", False)  # type: ignore[arg-type]
    assert metrics.may_read(cfg("PrivateData=jobs\nMetricsParameters=ignore_private_data"), "bob", False)  # type: ignore[arg-type]


def test_text_has_one_help_and_type_per_family() -> None:
    text = render([ctld_pb2.Gauge(name="node_cpus", label="node", label_value="n1", value=8),
                   ctld_pb2.Gauge(name="node_cpus", label="node", label_value='we"ird', value=2.5),
                   ctld_pb2.Gauge(name="nodes", value=1)])
    assert text.splitlines() == [
        "# HELP slurm_node_cpus CPUs of the node", "# TYPE slurm_node_cpus gauge", 'slurm_node_cpus{node="n1"} 8',
        'slurm_node_cpus{node="we\\"ird"} 2.5', "# HELP slurm_nodes Total number of nodes",
        "# TYPE slurm_nodes gauge", "slurm_nodes 1"]
