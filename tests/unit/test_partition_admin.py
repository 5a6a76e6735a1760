"""scontrol create/update/delete partition (pyslurm_ctld/core/partition_admin.py) and how the job
manager journals them: checked like slurm.conf lines, refused in Slurm's words, replayed."""
from __future__ import annotations

from pathlib import Path

import pytest

from pyslurm_common.conf_records import parse_node_line
from pyslurm_common.config import load_config
from pyslurm_common.errors import SlurmError
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.core.topology import partition_edit, reconfigure
from pyslurm_ctld.model.events import NodeCreated, event_from_dict, event_to_dict
from pyslurm_ctld.core.partition_admin import settings_from_words
from pyslurm_common.units import UNLIMITED

CONF = """\
ClusterName=lab
SlurmctldHost=head
NodeName=n[1-3] CPUs=4 RealMemory=4000
PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=60
PartitionName=all Nodes=ALL
"""
ROOT, SLURM_UID, ALICE = 0, 450, 1000


@pytest.fixture
def manager(tmp_path: Path) -> ClusterState:
    (tmp_path / "slurm.conf").write_text(CONF)
    return ClusterState(load_config(tmp_path / "slurm.conf"), SLURM_UID)


def change(manager: ClusterState, action: str, name: str, *words: str, uid: int = ROOT) -> None:
    apply(manager, partition_edit(manager, action, name, settings_from_words(words), uid))


def test_update_changes_only_the_keys_given(manager: ClusterState, tmp_path: Path) -> None:
    (tmp_path / "slurm.conf").write_text(CONF.replace("MaxTime=60", "MaxTime=60 AllowAccounts=lab GraceTime=30"))
    reconfigure(manager, load_config(tmp_path / "slurm.conf"))
    change(manager, "update", "debug", "State=DOWN", "MaxTime=30")
    debug = manager.partitions["debug"]
    assert (debug.state, debug.max_time_min, debug.nodes, debug.is_default) == ("DOWN", 30, ("n1", "n2"), True)
    change(manager, "update", "debug", "Nodes=n3", "MaxTime=UNLIMITED")
    debug = manager.partitions["debug"]
    assert (debug.state, debug.max_time_min, debug.nodes) == ("DOWN", UNLIMITED, ("n3",))
    assert (debug.allow_accounts, debug.grace_time) == (("lab",), 30)   # slurm.conf's, untouched
    assert manager.nodes["n3"].partitions == ["debug", "all"]


def test_create_and_delete_a_partition(manager: ClusterState) -> None:
    change(manager, "create", "gpu", "Nodes=n3", "MaxTime=2:00:00", "Default=YES")
    gpu = manager.partitions["gpu"]
    assert (gpu.nodes, gpu.max_time_min, gpu.is_default) == (("n3",), 120, True)
    assert not manager.partitions["debug"].is_default          # one default: the newest
    change(manager, "delete", "gpu")
    assert "gpu" not in manager.partitions
    change(manager, "delete", "all")
    assert list(manager.partitions) == ["debug"]


@pytest.mark.parametrize(("action", "name", "words", "strerror", "detail"), [
    ("update", "nope", ("State=UP",), "Invalid partition name specified", ""),
    ("create", "debug", ("Nodes=n1",), "Invalid partition name specified", ""),
    ("create", "DEFAULT", ("Nodes=n1",), "Invalid argument", 'PartitionName cannot be "DEFAULT".'),
    ("update", "debug", ("Nodes=n9",), "Invalid node name specified", "Invalid node name specified: n9"),
    ("update", "debug", ("State=SIDEWAYS",), "Invalid argument", "invalid State value 'SIDEWAYS'"),
    ("update", "debug", ("Colour=blue",), "Invalid argument",
     "Update of this parameter is not supported: Colour=blue\nRequest aborted"),
])
def test_refusals(manager: ClusterState, action: str, name: str, words: tuple[str, ...], strerror: str,
                  detail: str) -> None:
    with pytest.raises(SlurmError) as caught:
        change(manager, action, name, *words)
    assert caught.value.strerror == strerror
    assert caught.value.detail.startswith(detail)


def test_only_administrators_change_partitions(manager: ClusterState) -> None:
    with pytest.raises(SlurmError, match="Invalid user id"):
        change(manager, "update", "debug", "State=DOWN", uid=ALICE)
    change(manager, "update", "debug", "State=DRAIN", uid=SLURM_UID)
    assert manager.partitions["debug"].state == "DRAIN"


def test_changes_replay_from_the_journal_and_survive_compaction(manager: ClusterState, tmp_path: Path) -> None:
    change(manager, "create", "gpu", "Nodes=n3", "Default=YES")
    change(manager, "update", "debug", "MaxTime=10")
    change(manager, "delete", "all")
    for events in ([*manager.partition_edits.values()], list(manager.snapshot_events())):
        again = ClusterState(manager.cfg, SLURM_UID)
        for event in events:
            apply(again, event_from_dict(event_to_dict(event)))
        assert again.partitions == manager.partitions


def test_changes_stay_over_a_reconfigured_slurm_conf(manager: ClusterState, tmp_path: Path) -> None:
    change(manager, "update", "debug", "State=DOWN")
    (tmp_path / "slurm.conf").write_text(CONF.replace("MaxTime=60", "MaxTime=90"))
    reconfigure(manager, load_config(tmp_path / "slurm.conf"))
    debug = manager.partitions["debug"]
    assert (debug.state, debug.max_time_min) == ("DOWN", 90)


def test_a_created_partition_of_all_nodes_takes_dynamic_nodes_once(manager: ClusterState) -> None:
    apply(manager, NodeCreated(parse_node_line("NodeName=d1 CPUs=1 RealMemory=100", Path("pyslurmd -Z"))))
    change(manager, "create", "grow", "Nodes=ALL")
    assert manager.partitions["grow"].nodes == ("n1", "n2", "n3", "d1")
    assert manager.partitions["all"].nodes == ("n1", "n2", "n3", "d1")
