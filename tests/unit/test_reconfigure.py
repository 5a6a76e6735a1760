"""Reconfiguration and dynamic nodes in the controller's core (pyslurm_ctld/core/reconfigure.py,
core/topology.py: reconfigure, node_creation, node_deletion) and the dynamic node definition a
`pyslurmd -Z --conf` builds (pyslurm_d/dynamic_node.py).

Spec: config-slurm-conf.md §1 (changes apply on SIGHUP / scontrol reconfigure; some keys need
a restart), Slurm's dynamic nodes (Nodes=ALL partitions take them; only dynamic nodes without
jobs can be deleted, with Slurm's messages).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pyslurm_common.conf_records import parse_node_line
from pyslurm_common.config import ConfigError, load_config
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.core.topology import node_creation, node_deletion, reconfigure
from pyslurm_ctld.model.events import NodeAdminChanged, NodeCreated, NodesDeleted, event_from_dict, event_to_dict
from pyslurm_ctld.model.job import JobState
from pyslurm_ctld.core.reconfigure import load_checked
from pyslurm_d import dynamic_node
from pyslurm_d.hardware import Hardware

from tests.builders import CONF, SLURM_UID, error_of, finish, make_manager, register_node, run_job, submit

ALL_CONF = CONF.replace("PartitionName=long Nodes=n1", "PartitionName=long Nodes=ALL")
HW = Hardware(cpus=4, real_memory_mb=3900, gpus=(), boot_time=0, arch="x86_64", os="Linux",
              sockets=1, cores_per_socket=4, threads_per_core=1)


def new_config(tmp_path: Path, text: str, name: str = "new.conf"):  # type: ignore[no-untyped-def]
    path = tmp_path / name
    path.write_text(text)
    return load_config(path)


def same_path(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    """The configuration a reconfigure reads: the same slurm.conf, rewritten."""
    (tmp_path / "slurm.conf").write_text(text)
    return load_config(tmp_path / "slurm.conf")


# ---- reconfigure ---------------------------------------------------------------------------


def test_reconfigure_applies_partition_node_and_limit_changes_and_keeps_jobs(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    running = run_job(mgr)
    pending = submit(mgr, hold=True)
    apply(mgr, NodeAdminChanged(("n2",), "DRAIN", "disk", 0, 5))
    text = (CONF.replace("MaxTime=60", "MaxTime=30").replace("MinJobAge=300", "MinJobAge=60")
            + "NodeName=n3 CPUs=2 RealMemory=2000\nPartitionName=small Nodes=n3\n")
    reconfigure(mgr, same_path(tmp_path, text))
    assert mgr.partitions["debug"].max_time_min == 30 and "small" in mgr.partitions
    assert mgr.cfg.min_job_age == 60
    assert set(mgr.nodes) == {"n1", "n2", "n3"} and mgr.nodes["n3"].partitions == ["small"]
    assert not mgr.nodes["n3"].registered
    # What the nodes said and what admins did survives; so do the jobs.
    assert mgr.nodes["n1"].registered and mgr.nodes["n2"].drain and mgr.nodes["n2"].reason == "disk"
    assert mgr.jobs[running.job_id].state is JobState.RUNNING
    assert mgr.jobs[pending.job_id].state is JobState.PENDING


def test_the_settings_parsed_when_slurm_conf_was_read_are_the_ones_in_force(tmp_path: Path) -> None:
    """Priority and scheduling keys are parsed once per file read (load_checked), then kept:
    the state uses that very object, a node or partition edit does not parse them again, and a
    reconfigure installs the new file's."""
    (tmp_path / "slurm.conf").write_text(ALL_CONF + "PriorityType=priority/multifactor\nPriorityWeightAge=100\n"
                                         "SchedulerParameters=bf_window=60\n")
    files = load_checked(tmp_path / "slurm.conf")
    assert (files.settings.priority.weight_age, files.settings.scheduling.backfill.window_s) == (100, 3600)
    mgr = ClusterState(files.slurm, SLURM_UID, files.settings)
    apply(mgr, dyn())                                      # installs the same slurm.conf again
    assert mgr.priorities.settings is files.settings.priority and mgr.options is files.settings.scheduling
    (tmp_path / "slurm.conf").write_text(ALL_CONF + "PriorityType=priority/multifactor\nPriorityWeightAge=5\n")
    changed = load_checked(tmp_path / "slurm.conf")
    reconfigure(mgr, changed.slurm, changed.settings)
    assert mgr.priorities.settings is changed.settings.priority and mgr.options is changed.settings.scheduling
    assert mgr.priorities.settings.weight_age == 5 and mgr.options.backfill.window_s == 1440 * 60


def test_reconfigure_can_change_a_node_definition(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    reconfigure(mgr, same_path(tmp_path, CONF.replace("NodeName=n1 CPUs=4", "NodeName=n1 CPUs=2")))
    assert mgr.nodes["n1"].config.cpus == 2
    # The scheduler sees the new size at once.
    job = submit(mgr, num_tasks=3, ntasks_given=True, partition="long")
    assert schedule_pass(mgr, 300) == [] and mgr.jobs[job.job_id].state is JobState.PENDING


def test_removing_a_node_that_runs_a_job_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = run_job(mgr, partition="long")            # long has only n1
    old = mgr.cfg
    text = CONF.replace("NodeName=n1 CPUs=4 RealMemory=4000\n", "").replace("Nodes=n1,n2", "Nodes=n2") \
        .replace("PartitionName=long Nodes=n1 DefaultTime=120\n", "")
    err = error_of(reconfigure, mgr, same_path(tmp_path, text))
    assert f"node n1 is not in {tmp_path / 'slurm.conf'} any more but runs job(s) {job.job_id}" in err.detail
    assert f"partition long is not in {tmp_path / 'slurm.conf'} any more but has job(s) {job.job_id}" in err.detail
    assert mgr.cfg is old and "n1" in mgr.nodes and "long" in mgr.partitions
    # Once the job is over, the same change goes through.
    finish(mgr, job.job_id)
    reconfigure(mgr, same_path(tmp_path, text))
    assert "n1" not in mgr.nodes and set(mgr.partitions) == {"debug"}


@pytest.mark.parametrize("change", [
    ("SlurmctldHost=head", "SlurmctldHost=other"),
    ("ClusterName=lab", "ClusterName=lab2"),
    ("MinJobAge=300", "MinJobAge=300\nSlurmctldPort=7000"),
    ("MinJobAge=300", "MinJobAge=300\nStateSaveLocation=/elsewhere"),
])
def test_keys_the_running_controller_cannot_change_need_a_restart(tmp_path: Path, change: tuple[str, str]) -> None:
    mgr = make_manager(tmp_path)
    err = error_of(reconfigure, mgr, same_path(tmp_path, CONF.replace(*change)))
    assert "restart pyslurmctld to change it" in err.detail


def test_load_checked_reports_gres_and_cgroup_conf_errors_with_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "slurm.conf").write_text(CONF)
    assert load_checked(tmp_path / "slurm.conf").slurm.cluster_name == "lab"
    (tmp_path / "cgroup.conf").write_text("ConstrainCores=yes\nAllowedRAMSpace=lots\n")
    with pytest.raises(ConfigError, match=rf"^{tmp_path / 'cgroup.conf'}:2: invalid AllowedRAMSpace"):
        load_checked(tmp_path / "slurm.conf")
    (tmp_path / "cgroup.conf").write_text("")
    (tmp_path / "gres.conf").write_text("NodeName=n2 Name=gpu Count=many\n")
    with pytest.raises(ConfigError, match=rf"^{tmp_path / 'gres.conf'}:1: "):
        load_checked(tmp_path / "slurm.conf")


# ---- dynamic nodes -----------------------------------------------------------------------------


def dyn(name: str = "d1", extra: str = "") -> NodeCreated:
    return NodeCreated(parse_node_line(f"NodeName={name} CPUs=4 RealMemory=4000 {extra}", Path("--conf")))


def test_a_dynamic_node_joins_the_partitions_that_take_all_nodes_and_runs_jobs(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, conf=ALL_CONF)
    event = node_creation(mgr, dyn().node)
    assert event == dyn()
    apply(mgr, event)
    assert mgr.nodes["d1"].dynamic and mgr.nodes["d1"].partitions == ["long"]
    assert "d1" in mgr.partitions["long"].nodes and "d1" not in mgr.partitions["debug"].nodes
    assert node_creation(mgr, dyn().node) is None          # registering again changes nothing
    register_node(mgr, "d1", now=1.0)
    register_node(mgr, "n1", now=1.0)
    apply(mgr, NodeAdminChanged(("n1",), "DRAIN", "x", 0, 1))
    job = run_job(mgr, partition="long")
    assert job.allocation is not None and job.allocation.nodes == ("d1",)


def test_a_dynamic_node_joins_the_partitions_of_a_nodeset_by_its_feature_and_runs_jobs(tmp_path: Path) -> None:
    # Slinky's slurm.conf: NodeSet=<n> Feature=<n>, PartitionName=<n> Nodes=<n>, and each slurmd
    # started with -Z --conf "Features=<n>" (Slurm's dynamic_nodes.html, Partition Assignment).
    conf = CONF + "NodeSet=slinky Feature=slinky\nPartitionName=slinky Nodes=slinky\n"
    mgr = make_manager(tmp_path, conf=conf)
    assert mgr.partitions["slinky"].nodes == ()
    apply(mgr, node_creation(mgr, dyn("d1", "Features=slinky").node))
    apply(mgr, node_creation(mgr, dyn("d2", "Features=other").node))
    assert mgr.partitions["slinky"].nodes == ("d1",) and mgr.nodes["d1"].partitions == ["slinky"]
    assert mgr.nodes["d2"].partitions == []
    register_node(mgr, "d1", now=1.0)
    job = run_job(mgr, partition="slinky")
    assert job.allocation is not None and job.allocation.nodes == ("d1",)


def test_a_slurm_conf_node_cannot_register_as_dynamic(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    err = error_of(node_creation, mgr, dyn("n1").node)
    assert err.detail == "node n1 is in slurm.conf: start its pyslurmd without -Z"


def test_deleting_nodes_follows_slurms_rules(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, conf=ALL_CONF)
    apply(mgr, dyn())
    register_node(mgr, "d1", now=1.0)
    assert error_of(node_deletion, mgr, ["n1"]).detail == "Can't delete non-dynamic node 'n1'."
    assert error_of(node_deletion, mgr, ["zz"]).detail == "Invalid node name specified: zz"
    apply(mgr, NodeAdminChanged(("n1",), "DRAIN", "x", 0, 1))
    job = run_job(mgr, partition="long")
    assert error_of(node_deletion, mgr, ["d1"]).detail == "Node 'd1' can't be delete because it's still in use."
    finish(mgr, job.job_id)
    event = node_deletion(mgr, ["d1"])
    assert event == NodesDeleted(("d1",))
    apply(mgr, event)
    assert "d1" not in mgr.nodes and "d1" not in mgr.partitions["long"].nodes


def test_dynamic_nodes_survive_reconfigure_and_replay(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, conf=ALL_CONF)
    apply(mgr, dyn(extra="Gres=gpu:2 Features=fast"))
    reconfigure(mgr, same_path(tmp_path, ALL_CONF.replace("MinJobAge=300", "MinJobAge=100")))
    assert mgr.nodes["d1"].dynamic and "d1" in mgr.partitions["long"].nodes
    assert len(mgr.gpu_types["d1"]) == 2
    # A restarted controller rebuilds it from the journal (compacted or not).
    events = [event_from_dict(event_to_dict(e)) for e in mgr.snapshot_events()]
    restarted = ClusterState(load_config(tmp_path / "slurm.conf"), slurm_uid=SLURM_UID)
    for event in events:
        apply(restarted, event)
    assert restarted.dynamic_nodes == mgr.dynamic_nodes
    assert restarted.nodes["d1"].config.features == ("fast",)
    # A dynamic node also named in slurm.conf needs deleting first.
    err = error_of(reconfigure, mgr, same_path(tmp_path, ALL_CONF + "NodeName=d1 CPUs=1\n"))
    assert "node d1 is a dynamic node and now also in" in err.detail


def test_a_replayed_dynamic_node_that_is_now_in_slurm_conf_gives_way(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, conf=ALL_CONF + "NodeName=d1 CPUs=2 RealMemory=100\n")
    apply(mgr, dyn())
    assert not mgr.nodes["d1"].dynamic and mgr.nodes["d1"].config.cpus == 2


# ---- the definition pyslurmd -Z registers with ----------------------------------------------------


def test_dynamic_definition_fills_in_detected_hardware() -> None:
    line = dynamic_node.definition("d1", HW, "", "gpu:1")
    node = parse_node_line(line, Path("--conf"))
    assert (node.cpus, node.cores_per_socket, node.real_memory_mb, node.gres) == (4, 4, 3900, "gpu:1")


def test_dynamic_definition_takes_conf_values_over_detected_ones() -> None:
    line = dynamic_node.definition("d1", HW, 'CPUs=2 RealMemory=1000 Gres=gpu:a100:2 Features="a,b"', "gpu:1")
    node = parse_node_line(line, Path("--conf"))
    assert (node.cpus, node.real_memory_mb, node.gres, node.features) == (2, 1000, "gpu:a100:2", ("a", "b"))


@pytest.mark.parametrize("conf,message", [
    ("NodeName=x", "--conf:1: NodeName= is not allowed in --conf: name the node with -N"),
    ("RealMemory=lots", "--conf:1: invalid RealMemory value 'lots'"),
    ("Gres=gpu:x:y:z", "--conf:1: invalid Gres value"),
])
def test_bad_dynamic_conf_is_an_error_naming_conf(conf: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        dynamic_node.definition("d1", HW, conf, "")
    assert str(info.value).startswith(message)
