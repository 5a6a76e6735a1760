"""slurm.conf / slurmdbd.conf parsing (spec config-slurm-conf.md §1, §3–5, §8)."""

from __future__ import annotations

import dataclasses
import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pyslurm_common.conf_records import NodeConfig
from pyslurm_common.config import ConfigError, SlurmConfig, config_path, load_config, load_dbd_config
from pyslurm_common.units import UNLIMITED

BASE = "ClusterName=Lab\nSlurmctldHost=head\n"


def write(tmp_path: Path, text: str, name: str = "slurm.conf") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def load(tmp_path: Path, text: str) -> SlurmConfig:
    return load_config(write(tmp_path, BASE + textwrap.dedent(text)))


def error_of(tmp_path: Path, text: str, base: str = BASE) -> str:
    path = write(tmp_path, base + textwrap.dedent(text))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return str(info.value)


# --- minimal file and defaults ---------------------------------------------------------------


def test_minimal_config_defaults(tmp_path: Path) -> None:
    cfg = load(tmp_path, "")
    assert cfg.path == tmp_path / "slurm.conf"
    assert cfg.cluster_name == "lab"  # lower-cased
    assert (cfg.controller_host, cfg.controller_addr) == ("head", "head")
    assert (cfg.ctld_port, cfg.slurmd_port, cfg.accounting_storage_port) == (6817, 6818, 6819)
    assert cfg.slurm_user == "root"
    assert cfg.state_save_location == Path("/var/spool/pyslurm/ctld")
    assert cfg.slurmd_spool_dir == "/var/spool/pyslurm/d"
    assert (cfg.kill_wait, cfg.slurmd_timeout, cfg.min_job_age) == (30, 300, 300)
    assert (cfg.first_job_id, cfg.max_job_count) == (1, 10000)
    assert cfg.def_mem_per_cpu_mb is None
    assert cfg.accounting_storage_type == "accounting_storage/none"
    assert not cfg.accounting_enabled
    assert cfg.accounting_storage_host is None
    assert cfg.auth_socket == Path("/run/pyslurm/auth.socket")
    assert cfg.key_file == tmp_path / "slurm.key"
    assert cfg.slurmctld_log_file is None and cfg.slurmd_pid_file is None
    assert (cfg.slurmctld_debug, cfg.slurmd_debug) == ("info", "info")
    assert cfg.nodes == () and cfg.partitions == ()
    assert cfg.default_partition is None
    assert cfg.entries == (("ClusterName", "Lab"), ("SlurmctldHost", "head"))


def test_global_keys_typed(tmp_path: Path) -> None:
    cfg = load(tmp_path, """
        SlurmctldPort=7817-7818
        SlurmdPort=7818
        SlurmUser=slurm
        StateSaveLocation=/srv/ctld
        SlurmdSpoolDir=/var/spool/d/%n
        KillWait=5
        SlurmdTimeout=60
        MinJobAge=0
        FirstJobId=1000
        MaxJobCount=50
        DefMemPerCPU=1G
        AccountingStorageType=Accounting_Storage/SlurmDBD
        AccountingStorageHost=db
        AccountingStoragePort=7819
        AuthInfo=socket=/run/x.sock,ttl=60,key=keys/slurm.key
        SlurmctldLogFile=/var/log/ctld.log
        SlurmdLogFile=/var/log/d-%n.log
        SlurmctldPidFile=/run/ctld.pid
        SlurmdPidFile=/run/d.pid
        SlurmctldDebug=debug2
        SlurmdDebug=5
    """)
    assert cfg.ctld_port == 7817  # first port of a range
    assert cfg.slurmd_port == 7818
    assert cfg.slurm_user == "slurm"
    assert cfg.state_save_location == Path("/srv/ctld")
    assert (cfg.kill_wait, cfg.slurmd_timeout, cfg.min_job_age) == (5, 60, 0)
    assert (cfg.first_job_id, cfg.max_job_count) == (1000, 50)
    assert cfg.def_mem_per_cpu_mb == 1024
    assert cfg.accounting_storage_type == "accounting_storage/slurmdbd"
    assert cfg.accounting_enabled
    assert (cfg.accounting_storage_host, cfg.accounting_storage_port) == ("db", 7819)
    assert cfg.auth_socket == Path("/run/x.sock")
    assert cfg.key_file == tmp_path / "keys" / "slurm.key"
    assert cfg.slurmctld_log_file == "/var/log/ctld.log"
    assert cfg.slurmd_log_file == "/var/log/d-%n.log"
    assert (cfg.slurmctld_pid_file, cfg.slurmd_pid_file) == ("/run/ctld.pid", "/run/d.pid")
    assert (cfg.slurmctld_debug, cfg.slurmd_debug) == ("debug2", "debug")
    assert cfg.value("minjobage") == "0"
    assert cfg.value("MINJOBAGE") == "0"
    assert cfg.value("NoSuchKey") is None


def test_slurmctld_host_with_address(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, "ClusterName=c\nSlurmctldHost=head(10.0.0.1)\n"))
    assert (cfg.controller_host, cfg.controller_addr) == ("head", "10.0.0.1")


def test_repeated_slurmctld_host_lines_name_backups_in_order(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, "ClusterName=c\nSlurmctldHost=head(10.0.0.1)\n"
                                      "SlurmctldHost=head2(10.0.0.2)\nSlurmctldHost=head3\nSlurmctldTimeout=30\n"))
    assert [(c.name, c.addr) for c in cfg.controllers] == [
        ("head", "10.0.0.1"), ("head2", "10.0.0.2"), ("head3", "head3")]
    assert (cfg.controller_host, cfg.controller_addr) == ("head", "10.0.0.1")
    assert cfg.slurmctld_timeout == 30


def test_one_controller_and_default_timeout(tmp_path: Path) -> None:
    cfg = load(tmp_path, "")
    assert [(c.name, c.addr) for c in cfg.controllers] == [("head", "head")]
    assert cfg.slurmctld_timeout == 120


def test_invalid_backup_slurmctld_host(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r":3: invalid SlurmctldHost value 'b\(\(x'"):
        load(tmp_path, "SlurmctldHost=b((x\n")


def test_old_backup_controller_aliases(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, "ClusterName=c\nControlMachine=old\nBackupController=old2\n"
                                      "BackupAddr=10.1.1.2\n"))
    assert [(c.name, c.addr) for c in cfg.controllers] == [("old", "old"), ("old2", "10.1.1.2")]


def test_old_control_machine_aliases(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, "ClusterName=c\nControlMachine=old\nControlAddr=10.1.1.1\n"))
    assert (cfg.controller_host, cfg.controller_addr) == ("old", "10.1.1.1")
    cfg = load_config(write(tmp_path, "ClusterName=c\nControlMachine=old\n"))
    assert (cfg.controller_host, cfg.controller_addr) == ("old", "old")


def test_spool_dir_for(tmp_path: Path) -> None:
    cfg = load(tmp_path, """
        SlurmdSpoolDir=/var/spool/d/%n-%h
        NodeName=n1 NodeHostname=host1
    """)
    assert cfg.spool_dir_for("n1") == Path("/var/spool/d/n1-host1")
    assert cfg.spool_dir_for("other") == Path("/var/spool/d/other-other")


def test_config_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYSLURM_CONF", raising=False)
    monkeypatch.delenv("SLURM_CONF", raising=False)
    assert config_path() == "/etc/pyslurm/slurm.conf"
    monkeypatch.setenv("SLURM_CONF", "/a/slurm.conf")
    assert config_path() == "/a/slurm.conf"
    monkeypatch.setenv("PYSLURM_CONF", "/b/slurm.conf")
    assert config_path() == "/b/slurm.conf"
    monkeypatch.setenv("PYSLURM_CONF", "")
    assert config_path() == "/a/slurm.conf"


def test_load_config_uses_env_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYSLURM_CONF", str(write(tmp_path, BASE)))
    assert load_config().cluster_name == "lab"


def test_objects_are_frozen(tmp_path: Path) -> None:
    cfg = load(tmp_path, "NodeName=n1\nPartitionName=p Nodes=n1\n")
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.cluster_name = "x"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.nodes[0].cpus = 9  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.partitions[0].state = "DOWN"  # type: ignore[misc]


# --- file syntax -----------------------------------------------------------------------------


def test_comments_and_escaped_hash(tmp_path: Path) -> None:
    cfg = load(tmp_path, r"""
        # a full-line comment
        SlurmUser=slurm   # trailing comment
        MailProg=/bin/mail\#x
    """)
    assert cfg.slurm_user == "slurm"
    assert cfg.value("MailProg") == "/bin/mail#x"


def test_case_insensitive_keys_and_canonical_entries(tmp_path: Path) -> None:
    cfg = load(tmp_path, "slurmuser=slurm\nKILLWAIT=7\nschedulerparameters=bf_interval=10\n")
    assert cfg.slurm_user == "slurm"
    assert cfg.kill_wait == 7
    assert ("SlurmUser", "slurm") in cfg.entries
    assert ("KillWait", "7") in cfg.entries
    assert ("SchedulerParameters", "bf_interval=10") in cfg.entries


def test_last_duplicate_global_wins_in_place(tmp_path: Path) -> None:
    cfg = load(tmp_path, "KillWait=5\nMinJobAge=10\nkillwait=9\n")
    assert cfg.kill_wait == 9
    assert [k for k, _ in cfg.entries] == ["ClusterName", "SlurmctldHost", "KillWait", "MinJobAge"]


def test_several_keys_per_line_and_spaces_around_equals(tmp_path: Path) -> None:
    cfg = load(tmp_path, "KillWait = 4   MinJobAge= 8 SlurmUser =slurm\n")
    assert (cfg.kill_wait, cfg.min_job_age, cfg.slurm_user) == (4, 8, "slurm")


def test_continuation_lines(tmp_path: Path) -> None:
    cfg = load(tmp_path, """
        NodeName=n1 \\
           CPUs=4 \\
           RealMemory=2000
        KillWait=3
    """)
    node = cfg.node("n1")
    assert (node.cpus, node.real_memory_mb) == (4, 2000)
    assert cfg.kill_wait == 3


def test_continuation_keeps_first_line_number_for_errors(tmp_path: Path) -> None:
    message = error_of(tmp_path, "NodeName=n1 \\\n  CPUs=many\n")
    assert message.startswith(f"{tmp_path / 'slurm.conf'}:3: ")
    assert "CPUs" in message


def test_even_backslashes_do_not_continue(tmp_path: Path) -> None:
    cfg = load(tmp_path, "MailProg=/x\\\\\nKillWait=2\n")
    assert cfg.value("MailProg") == "/x\\"
    assert cfg.kill_wait == 2


def test_quoted_values(tmp_path: Path) -> None:
    cfg = load(tmp_path, """
        NodeName=n1 State=DOWN Reason="disk replaced today" Features="a,b"
        Epilog="/usr/bin/epilog --flag x"
    """)
    assert cfg.node("n1").reason == "disk replaced today"
    assert cfg.node("n1").features == ("a", "b")
    assert cfg.value("Epilog") == "/usr/bin/epilog --flag x"


def test_unterminated_quote_is_an_error(tmp_path: Path) -> None:
    message = error_of(tmp_path, 'NodeName=n1 Reason="oops\n')
    assert message.startswith(f"{tmp_path / 'slurm.conf'}:3: parsing error")


def test_garbage_token_is_an_error(tmp_path: Path) -> None:
    assert error_of(tmp_path, "KillWait=3 justaword\n") == f"{tmp_path / 'slurm.conf'}:3: parsing error at: justaword"


def test_plus_equals_is_rejected(tmp_path: Path) -> None:
    message = error_of(tmp_path, "SchedulerParameters+=defer\n")
    assert message.startswith(f"{tmp_path / 'slurm.conf'}:3: SchedulerParameters+=")


def test_include_relative_to_conf_dir(tmp_path: Path) -> None:
    write(tmp_path, "NodeName=n[1-2] CPUs=2\n", name="nodes.conf")
    write(tmp_path, "PartitionName=p Nodes=ALL\n", name="sub/parts.conf")
    cfg = load(tmp_path, "Include nodes.conf\ninclude sub/parts.conf\nKillWait=1\n")
    assert [n.name for n in cfg.nodes] == ["n1", "n2"]
    assert cfg.partition("p").nodes == ("n1", "n2")
    assert cfg.kill_wait == 1


def test_include_nested_paths_stay_relative_to_slurm_conf_dir(tmp_path: Path) -> None:
    write(tmp_path, "Include inner.conf\n", name="sub/outer.conf")
    write(tmp_path, "KillWait=11\n", name="inner.conf")
    assert load(tmp_path, "Include sub/outer.conf\n").kill_wait == 11


def test_include_percent_c_and_glob(tmp_path: Path) -> None:
    write(tmp_path, "NodeName=a1\n", name="lab/a.conf")
    write(tmp_path, "NodeName=b1\n", name="lab/b.conf")
    cfg = load(tmp_path, "Include %c/*.conf\n")
    assert [n.name for n in cfg.nodes] == ["a1", "b1"]


def test_include_absolute_path(tmp_path: Path) -> None:
    other = write(tmp_path, "KillWait=12\n", name="elsewhere/x.conf")
    assert load(tmp_path, f"Include {other}\n").kill_wait == 12


def test_include_missing_file_error_has_location(tmp_path: Path) -> None:
    message = error_of(tmp_path, "Include missing.conf\n")
    assert message.startswith(f"{tmp_path / 'slurm.conf'}:3: Include file not found")


def test_include_loop_is_an_error(tmp_path: Path) -> None:
    write(tmp_path, "Include loop.conf\n", name="loop.conf")
    assert "Include nested too deeply" in error_of(tmp_path, "Include loop.conf\n")


def test_errors_inside_included_file_name_that_file(tmp_path: Path) -> None:
    write(tmp_path, "\n\nKillWait=soon\n", name="extra.conf")
    message = error_of(tmp_path, "Include extra.conf\n")
    assert message == f"{tmp_path / 'extra.conf'}:3: invalid KillWait value 'soon': expected an integer"


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path / "absent.conf")
    assert str(info.value).startswith(f"{tmp_path / 'absent.conf'}: cannot read")


# --- unknown keys are warnings ----------------------------------------------------------------


def test_unknown_global_key_warns_and_is_kept(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="pyslurm_common.config"):
        cfg = load(tmp_path, "FrobnicateLevel=3\n")
    assert ("FrobnicateLevel", "3") in cfg.entries
    assert f"{tmp_path / 'slurm.conf'}:3: Parsing error at unrecognized key: FrobnicateLevel" in caplog.text


def test_unknown_node_and_partition_keys_warn(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="pyslurm_common.config"):
        cfg = load(tmp_path, "NodeName=n1 Colour=red\nPartitionName=p Nodes=n1 Flavour=x AllowGroups=g\n")
    assert cfg.node("n1").cpus == 1
    where = tmp_path / "slurm.conf"
    assert f"{where}:3: Parsing error at unrecognized key: Colour" in caplog.text
    assert f"{where}:4: Parsing error at unrecognized key: Flavour" in caplog.text
    assert f"{where}:4: AllowGroups is not supported by pyslurm and is ignored" in caplog.text


def test_unsupported_record_types_warn(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        cfg = load(tmp_path, "SwitchName=s1 Nodes=n1\n")
    assert cfg.entries == (("ClusterName", "Lab"), ("SlurmctldHost", "head"))
    assert "SwitchName records are not supported" in caplog.text


# --- NodeSet (slurm.conf(5) NODESET CONFIGURATION; Slinky's NodeSet=<n> Feature=<n>) -----------

NODESET_NODES = "NodeName=n[1-4] CPUs=2\nNodeName=g[1-2] CPUs=2 Feature=gpu,big\n"


def test_a_nodeset_by_feature_is_the_nodes_with_it(tmp_path: Path) -> None:
    cfg = load(tmp_path, NODESET_NODES + "NodeSet=gpus Feature=gpu\nPartitionName=gpu Nodes=gpus\n")
    part = cfg.partition("gpu")
    assert part.nodes == ("g1", "g2") and part.node_expr == "gpus"
    assert part.node_features == ("gpu",) and not part.takes_all
    assert cfg.nodesets[0].name == "gpus" and cfg.nodesets[0].feature == "gpu"


def test_a_nodeset_of_feature_and_nodes_is_their_union_and_mixes_with_hosts(tmp_path: Path) -> None:
    cfg = load(tmp_path, NODESET_NODES + "NodeSet=mixed Feature=big Nodes=n[1-2]\n"
                         "PartitionName=p Nodes=n4,mixed,n1\n")
    assert cfg.partition("p").nodes == ("n4", "n1", "n2", "g1", "g2")


def test_a_nodeset_of_all_nodes_takes_later_ones(tmp_path: Path) -> None:
    cfg = load(tmp_path, NODESET_NODES + "NodeSet=every Nodes=ALL\nPartitionName=p Nodes=every\n")
    part = cfg.partition("p")
    assert part.nodes == ("n1", "n2", "n3", "n4", "g1", "g2") and part.takes_all
    assert part.takes(dataclasses.replace(cfg.node("n1"), name="d1", features=()))


def test_a_partition_takes_later_nodes_only_with_its_nodesets_feature(tmp_path: Path) -> None:
    cfg = load(tmp_path, NODESET_NODES + "NodeSet=gpus Feature=gpu\nPartitionName=p Nodes=gpus\n"
                         "PartitionName=plain Nodes=n1\n")
    gpu_node = dataclasses.replace(cfg.node("g1"), name="d1")
    other = dataclasses.replace(cfg.node("n1"), name="d2")
    assert cfg.partition("p").takes(gpu_node) and not cfg.partition("p").takes(other)
    assert not cfg.partition("plain").takes(gpu_node)


def test_a_nodeset_named_as_a_node_is_refused_in_slurms_words(tmp_path: Path) -> None:
    err = error_of(tmp_path, NODESET_NODES + "NodeSet=n2 Feature=gpu\n")
    assert err.endswith("NodeSet with name n2 overlaps with an existing NodeName")
    assert f"{tmp_path / 'slurm.conf'}:5:" in err


def test_a_nodeset_naming_an_unknown_node_fails_the_partition_using_it(tmp_path: Path) -> None:
    err = error_of(tmp_path, NODESET_NODES + "NodeSet=s Nodes=zz1\nPartitionName=p Nodes=s\n")
    assert "Nodes= of PartitionName=p names unknown node 'zz1'" in err


def test_unknown_nodeset_keys_warn(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        cfg = load(tmp_path, NODESET_NODES + "NodeSet=s Feature=gpu Colour=red\n")
    assert cfg.nodesets[0].nodes == ("g1", "g2")
    assert "Parsing error at unrecognized key: Colour" in caplog.text


# --- required keys and value errors -----------------------------------------------------------


def test_missing_cluster_name(tmp_path: Path) -> None:
    message = error_of(tmp_path, "", base="SlurmctldHost=head\n")
    assert message == f"{tmp_path / 'slurm.conf'}: ClusterName needs to be specified"


def test_missing_slurmctld_host(tmp_path: Path) -> None:
    message = error_of(tmp_path, "", base="ClusterName=c\n")
    assert message == f"{tmp_path / 'slurm.conf'}: SlurmctldHost is required"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("KillWait=abc", "invalid KillWait value 'abc': expected an integer"),
        ("MinJobAge=-5", "invalid MinJobAge value '-5': >= 0 required"),
        ("SlurmdPort=70000", "SlurmdPort value (70000) is out of range"),
        ("SlurmctldHost2=x SlurmctldDebug=loud", "invalid SlurmctldDebug value 'loud'"),
        ("DefMemPerCPU=lots", "invalid DefMemPerCPU value 'lots'"),
        ("NodeName=n1 CPUs=four", "invalid CPUs value 'four': expected an integer"),
        ("NodeName=n1 RealMemory=big", "invalid RealMemory value 'big'"),
        ("NodeName=n1 State=IDLE", "invalid State value 'IDLE': expected one of CLOUD, DOWN, DRAIN"),
        ("NodeName=n[1-2 CPUs=1", "invalid NodeName value: Invalid hostlist: n[1-2"),
        ("NodeName=n1 Sockets=1 SocketsPerBoard=1", "Sockets and SocketsPerBoard are mutually exclusive"),
        ("NodeName=n[1-3] NodeAddr=a[1-2]", "NodeAddr has 2 values but NodeName has 3 names"),
        ("NodeName=n1 Port=0", "invalid Port value '0': >= 1 required"),
        ("NodeName=n1 Gres=gpu:a100:v100:2", "invalid Gres value 'gpu:a100:v100:2': invalid GRES specification"),
        ("NodeName=n1 Gres=gpu::2", "invalid Gres value 'gpu::2'"),
        ("NodeName=ALL", "NodeName ALL is reserved"),
        ("PartitionName=p MaxTime=forever", "invalid MaxTime value 'forever': expected a time limit"),
        ("PartitionName=p DefaultTime=1:2:3:4", "invalid DefaultTime value '1:2:3:4'"),
        ("PartitionName=p State=OPEN", "invalid State value 'OPEN': expected one of DOWN, DRAIN, INACTIVE, UP"),
        ("PartitionName=p Default=maybe", "invalid Default value 'maybe': expected YES or NO"),
        ("PartitionName=p OverSubscribe=SOMETIMES", "invalid OverSubscribe value 'SOMETIMES'"),
        ("PartitionName=p OverSubscribe=NO:2", "invalid OverSubscribe value 'NO:2'"),
        ("PartitionName=p MaxNodes=none", "invalid MaxNodes value 'none': expected an integer"),
        ("PartitionName=p Nodes=ghost", "Nodes= of PartitionName=p names unknown node 'ghost'"),
        ("DownNodes=ghost", "DownNodes names unknown node 'ghost'"),
        ("KillWait=1 NodeName=n1", "NodeName= must start its line"),
        ("SlurmctldHost=head", None),  # a repeat is only a warning
    ],
)
def test_value_errors_carry_file_line_and_key(tmp_path: Path, line: str, message: str | None) -> None:
    path = write(tmp_path, BASE + "\n" + line + "\n")
    if message is None:
        load_config(path)
        return
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}:4: {message}")
    assert info.value.path == path and info.value.line == 4


def test_duplicate_node_names(tmp_path: Path) -> None:
    message = error_of(tmp_path, "NodeName=n[1-3]\nNodeName=n3\n")
    where = tmp_path / "slurm.conf"
    assert message == f"{where}:4: duplicate NodeName 'n3' (first defined at {where}:3)"


def test_duplicate_partition_names(tmp_path: Path) -> None:
    message = error_of(tmp_path, "PartitionName=p\nPartitionName=p\n")
    assert message == f"{tmp_path / 'slurm.conf'}:4: duplicate PartitionName 'p'"


# --- nodes -----------------------------------------------------------------------------------


def test_node_defaults(tmp_path: Path) -> None:
    node = load(tmp_path, "NodeName=n1\n").node("n1")
    assert node == NodeConfig(
        name="n1", hostname="n1", address="n1", port=None, cpus=1, sockets=1, cores_per_socket=1,
        threads_per_core=1, real_memory_mb=1, tmp_disk_mb=0, gres="", features=(), weight=1,
        state=None, reason=None,
    )


def test_node_full_line(tmp_path: Path) -> None:
    cfg = load(tmp_path, """
        NodeName=gpu01 NodeHostname=g1 NodeAddr=10.0.0.1 Port=7000 Sockets=2 CoresPerSocket=8 \\
          ThreadsPerCore=2 RealMemory=256000 TmpDisk=100G Gres=gpu:a100:4 Features=a100,nvlink \\
          Weight=10 State=DRAIN Reason="burn-in"
    """)
    node = cfg.node("gpu01")
    assert (node.hostname, node.address, node.port) == ("g1", "10.0.0.1", 7000)
    assert (node.cpus, node.sockets, node.cores_per_socket, node.threads_per_core) == (32, 2, 8, 2)
    assert (node.real_memory_mb, node.tmp_disk_mb) == (256000, 102400)
    assert node.gres == "gpu:a100:4"
    assert node.features == ("a100", "nvlink")
    assert (node.weight, node.state, node.reason) == (10, "DRAIN", "burn-in")


def test_node_unknown_name_raises_key_error(tmp_path: Path) -> None:
    with pytest.raises(KeyError):
        load(tmp_path, "NodeName=n1\n").node("n2")


@pytest.mark.parametrize(
    ("attrs", "shape"),
    [
        ("CPUs=8", (8, 8, 1, 1)),  # CPUs alone: one-core sockets
        ("Procs=4", (4, 4, 1, 1)),  # old spelling
        ("CoresPerSocket=4", (4, 1, 4, 1)),
        ("Sockets=2 CoresPerSocket=4 ThreadsPerCore=2", (16, 2, 4, 2)),
        ("CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=2", (8, 2, 4, 2)),  # CPUs = cores
        ("CPUs=16 CoresPerSocket=4 ThreadsPerCore=2", (16, 2, 4, 2)),  # sockets inferred
        ("Boards=2 SocketsPerBoard=2 CoresPerSocket=2", (8, 4, 2, 1)),
        ("Boards=2", (2, 2, 1, 1)),
        ("CPUs=6 Sockets=1 CoresPerSocket=4", (4, 1, 4, 1)),  # mismatch: reset to the product
    ],
)
def test_node_cpu_topology(tmp_path: Path, attrs: str, shape: tuple[int, int, int, int]) -> None:
    node = load(tmp_path, f"NodeName=n1 {attrs}\n").node("n1")
    assert (node.cpus, node.sockets, node.cores_per_socket, node.threads_per_core) == shape


def test_cpu_mismatch_warns(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        load(tmp_path, "NodeName=n1 CPUs=6 Sockets=1 CoresPerSocket=4\n")
    assert f"{tmp_path / 'slurm.conf'}:3: CPUs=6 does not match" in caplog.text


def test_hostlist_node_names_expand(tmp_path: Path) -> None:
    cfg = load(tmp_path, "NodeName=node[01-03] CPUs=4\n")
    assert [n.name for n in cfg.nodes] == ["node01", "node02", "node03"]
    assert all(n.cpus == 4 and n.hostname == n.name == n.address for n in cfg.nodes)


def test_hostname_and_addr_expand_in_parallel(tmp_path: Path) -> None:
    cfg = load(tmp_path, "NodeName=n[1-3] NodeHostname=h[4-6] NodeAddr=10.0.0.[7-9]\n")
    assert [(n.name, n.hostname, n.address) for n in cfg.nodes] == [
        ("n1", "h4", "10.0.0.7"), ("n2", "h5", "10.0.0.8"), ("n3", "h6", "10.0.0.9")]


def test_addr_defaults_to_hostname(tmp_path: Path) -> None:
    cfg = load(tmp_path, "NodeName=n[1-2] NodeHostname=h[1-2]\n")
    assert [n.address for n in cfg.nodes] == ["h1", "h2"]


def test_several_slurmds_on_one_host(tmp_path: Path) -> None:
    cfg = load(tmp_path, "NodeName=v[1-3] NodeHostname=box NodeAddr=127.0.0.1 Port=[17001-17003]\n")
    assert [(n.hostname, n.address, n.port) for n in cfg.nodes] == [
        ("box", "127.0.0.1", 17001), ("box", "127.0.0.1", 17002), ("box", "127.0.0.1", 17003)]


def test_node_default_records_accumulate_for_later_lines(tmp_path: Path) -> None:
    cfg = load(tmp_path, """
        NodeName=early
        NodeName=DEFAULT CPUs=4 RealMemory=1000
        NodeName=a1
        NodeName=default RealMemory=2000 Weight=5
        NodeName=b1
        NodeName=c1 CPUs=2
    """)
    shape = {n.name: (n.cpus, n.real_memory_mb, n.weight) for n in cfg.nodes}
    assert shape == {"early": (1, 1, 1), "a1": (4, 1000, 1), "b1": (4, 2000, 5), "c1": (2, 2000, 5)}


def test_down_nodes(tmp_path: Path) -> None:
    cfg = load(tmp_path, """
        NodeName=n[1-3]
        DownNodes=n[2-3] Reason="power supply"
        DownNodes=n3 State=DRAIN
    """)
    assert [(n.state, n.reason) for n in cfg.nodes] == [
        (None, None), ("DOWN", "power supply"), ("DRAIN", None)]


# --- partitions ------------------------------------------------------------------------------


def test_partition_defaults(tmp_path: Path) -> None:
    part = load(tmp_path, "NodeName=n1\nPartitionName=p Nodes=n1\n").partition("p")
    assert part.nodes == ("n1",) and part.node_expr == "n1"
    assert not part.is_default
    assert part.state == "UP"
    assert part.max_time_min == UNLIMITED
    assert part.default_time_min is None
    assert part.max_nodes is None and part.min_nodes == 0
    assert (part.priority_tier, part.priority_job_factor) == (1, 1)
    assert part.over_subscribe == "NO"
    assert part.def_mem_per_cpu_mb is None and part.max_mem_per_node_mb is None


def test_partition_full_line(tmp_path: Path) -> None:
    cfg = load(tmp_path, """
        NodeName=n[1-4]
        PartitionName=gpu Nodes=n[3-4],n1 Default=YES State=drain MaxTime=2-0 DefaultTime=30:00 \\
          MaxNodes=2 MinNodes=1 PriorityTier=10 PriorityJobFactor=3 OverSubscribe=force \\
          DefMemPerCPU=2G MaxMemPerNode=64000
    """)
    part = cfg.partition("gpu")
    assert part.nodes == ("n3", "n4", "n1") and part.node_expr == "n[3-4],n1"
    assert part.is_default and cfg.default_partition == part
    assert part.state == "DRAIN"
    assert (part.max_time_min, part.default_time_min) == (2880, 30)
    assert (part.max_nodes, part.min_nodes) == (2, 1)
    assert (part.priority_tier, part.priority_job_factor) == (10, 3)
    assert part.over_subscribe == "FORCE:4"
    assert (part.def_mem_per_cpu_mb, part.max_mem_per_node_mb) == (2048, 64000)


def test_partition_nodes_all_in_config_order(tmp_path: Path) -> None:
    cfg = load(tmp_path, "NodeName=z1\nNodeName=a[1-2]\nPartitionName=all Nodes=ALL\n")
    assert cfg.partition("all").nodes == ("z1", "a1", "a2")
    assert cfg.partition("all").node_expr == "ALL"


def test_partition_without_nodes(tmp_path: Path) -> None:
    part = load(tmp_path, "PartitionName=empty\n").partition("empty")
    assert part.nodes == () and part.node_expr == ""


def test_partition_unknown_name_raises_key_error(tmp_path: Path) -> None:
    with pytest.raises(KeyError):
        load(tmp_path, "PartitionName=p\n").partition("q")


@pytest.mark.parametrize(
    ("value", "normalised"),
    [("NO", "NO"), ("exclusive", "EXCLUSIVE"), ("YES", "YES:4"), ("yes:2", "YES:2"), ("FORCE:8", "FORCE:8")],
)
def test_over_subscribe_forms(tmp_path: Path, value: str, normalised: str) -> None:
    assert load(tmp_path, f"PartitionName=p OverSubscribe={value}\n").partition("p").over_subscribe == normalised


def test_shared_is_old_spelling_of_over_subscribe(tmp_path: Path) -> None:
    assert load(tmp_path, "PartitionName=p Shared=YES\n").partition("p").over_subscribe == "YES:4"


@pytest.mark.parametrize(("value", "minutes"), [("UNLIMITED", UNLIMITED), ("infinite", UNLIMITED),
                                               ("60", 60), ("1:00:00", 60), ("1-12", 2160)])
def test_partition_max_time_forms(tmp_path: Path, value: str, minutes: int) -> None:
    assert load(tmp_path, f"PartitionName=p MaxTime={value}\n").partition("p").max_time_min == minutes


def test_partition_default_records_accumulate(tmp_path: Path) -> None:
    cfg = load(tmp_path, """
        NodeName=n[1-2]
        PartitionName=DEFAULT Nodes=ALL MaxTime=60
        PartitionName=a
        PartitionName=DEFAULT State=DOWN
        PartitionName=b MaxTime=30
    """)
    a, b = cfg.partition("a"), cfg.partition("b")
    assert (a.nodes, a.max_time_min, a.state) == (("n1", "n2"), 60, "UP")
    assert (b.nodes, b.max_time_min, b.state) == (("n1", "n2"), 30, "DOWN")
    assert [p.name for p in cfg.partitions] == ["a", "b"]


def test_partition_inherits_global_memory_defaults(tmp_path: Path) -> None:
    cfg = load(tmp_path, """
        DefMemPerCPU=1024
        MaxMemPerNode=8G
        PartitionName=a
        PartitionName=b DefMemPerCPU=512 MaxMemPerNode=UNLIMITED
        PartitionName=c DefMemPerCPU=0
    """)
    assert (cfg.partition("a").def_mem_per_cpu_mb, cfg.partition("a").max_mem_per_node_mb) == (1024, 8192)
    assert (cfg.partition("b").def_mem_per_cpu_mb, cfg.partition("b").max_mem_per_node_mb) == (512, None)
    assert cfg.partition("c").def_mem_per_cpu_mb is None


def test_old_priority_key_sets_tier_and_factor(tmp_path: Path) -> None:
    part = load(tmp_path, "PartitionName=p Priority=5\n").partition("p")
    assert (part.priority_tier, part.priority_job_factor) == (5, 5)


def test_only_the_last_default_partition_is_default(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        cfg = load(tmp_path, "PartitionName=a Default=YES\nPartitionName=b Default=YES\nPartitionName=c\n")
    assert [p.is_default for p in cfg.partitions] == [False, True, False]
    assert cfg.default_partition is not None and cfg.default_partition.name == "b"
    assert "several partitions have Default=YES" in caplog.text


def test_partition_node_list_is_deduplicated(tmp_path: Path) -> None:
    cfg = load(tmp_path, "NodeName=n[1-3]\nPartitionName=p Nodes=n[1-2],n2,n1,n3\n")
    assert cfg.partition("p").nodes == ("n1", "n2", "n3")


# --- slurmdbd.conf ---------------------------------------------------------------------------


def test_dbd_defaults_sqlite(tmp_path: Path) -> None:
    path = write(tmp_path, "# empty\n", name="slurmdbd.conf")
    dbd = load_dbd_config(path)
    assert dbd.path == path
    assert (dbd.dbd_host, dbd.dbd_addr, dbd.dbd_port) == ("localhost", "localhost", 6819)
    assert dbd.storage_url == "sqlite:////var/lib/pyslurm/slurm_acct_db.sqlite"
    assert (dbd.log_file, dbd.pid_file, dbd.debug) == (None, None, "info")


def test_dbd_next_to_slurm_conf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYSLURM_CONF", str(tmp_path / "slurm.conf"))
    write(tmp_path, "DbdHost=acct DbdPort=7000\n", name="slurmdbd.conf")
    dbd = load_dbd_config()
    assert dbd.path == tmp_path / "slurmdbd.conf"
    assert (dbd.dbd_host, dbd.dbd_addr, dbd.dbd_port) == ("acct", "acct", 7000)


def test_dbd_full(tmp_path: Path) -> None:
    dbd = load_dbd_config(write(tmp_path, """
        DbdHost=acct
        DbdAddr=10.0.0.5
        SlurmUser=slurm
        StorageType=accounting_storage/sqlite
        StorageLoc=db/acct.sqlite
        LogFile=/var/log/dbd.log
        PidFile=/run/dbd.pid
        DebugLevel=verbose
        PurgeJobAfter=12month
    """, name="slurmdbd.conf"))
    assert (dbd.dbd_host, dbd.dbd_addr) == ("acct", "10.0.0.5")
    assert dbd.slurm_user == "slurm"
    assert dbd.storage_url == f"sqlite:///{tmp_path / 'db' / 'acct.sqlite'}"
    assert (dbd.log_file, dbd.pid_file, dbd.debug) == ("/var/log/dbd.log", "/run/dbd.pid", "verbose")
    assert ("PurgeJobAfter", "12month") in dbd.entries


def test_dbd_mysql_url(tmp_path: Path) -> None:
    dbd = load_dbd_config(write(tmp_path, """
        StorageType=accounting_storage/mysql
        StorageHost=dbhost
        StorageUser=slurm
        StoragePass=p@ss:word
        StorageLoc=acct
    """, name="slurmdbd.conf"))
    assert dbd.storage_url == "mysql+pymysql://slurm:p%40ss%3Aword@dbhost:3306/acct"


def test_dbd_pgsql_url_defaults(tmp_path: Path) -> None:
    dbd = load_dbd_config(write(tmp_path, "StorageType=accounting_storage/pgsql\nStoragePort=6000\n",
                                name="slurmdbd.conf"))
    assert dbd.storage_url == "postgresql+psycopg://root@localhost:6000/slurm_acct_db"


def test_dbd_storage_url_wins(tmp_path: Path) -> None:
    dbd = load_dbd_config(write(tmp_path, "StorageType=accounting_storage/mysql\n"
                                          "StorageURL=sqlite:///:memory:\n", name="slurmdbd.conf"))
    assert dbd.storage_url == "sqlite:///:memory:"


def test_dbd_errors(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = write(tmp_path, "StorageType=accounting_storage/oracle\n", name="slurmdbd.conf")
    with pytest.raises(ConfigError) as info:
        load_dbd_config(path)
    assert str(info.value).startswith(f"{path}:1: invalid StorageType value 'accounting_storage/oracle'")
    path = write(tmp_path, "DbdPort=x\n", name="slurmdbd.conf")
    with pytest.raises(ConfigError, match=r":1: invalid DbdPort value 'x'"):
        load_dbd_config(path)
    with caplog.at_level(logging.WARNING):
        load_dbd_config(write(tmp_path, "Wibble=1\n", name="slurmdbd.conf"))
    assert "slurmdbd.conf:1: Parsing error at unrecognized key: Wibble" in caplog.text


# --- import cost -----------------------------------------------------------------------------


def test_config_imports_nothing_heavy() -> None:
    code = ("import sys, pyslurm_common.config; "
            "print(','.join(m for m in ('grpc', 'sqlalchemy', 'psutil', 'google.protobuf') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == ""


# --- Slinky's slurm.conf: auth, cred and metrics plugins (slurm.conf(5) AuthType ... MetricsType) ----

SLINKY_KEYS = """\
    SlurmctldParameters=enable_configless,reconfig_on_restart
    AuthType=auth/slurm
    CredType=cred/slurm
    AuthAltTypes=auth/jwt
    AuthAltParameters=jwt_key=/etc/slurm/jwt.key
    AuthInfo=use_client_ids
    MetricsType=metrics/openmetrics
    NodeSet=slinky Feature=slinky
    PartitionName=slinky Nodes=slinky
    PartitionName=all Nodes=ALL Default=YES
    """


def test_slinkys_slurm_conf_loads_with_the_key_beside_it(tmp_path: Path) -> None:
    cfg = load(tmp_path, SLINKY_KEYS)
    assert cfg.key_file == tmp_path / "slurm.key"      # auth/slurm's slurm.key in the conf dir
    assert cfg.value("AuthAltParameters") == "jwt_key=/etc/slurm/jwt.key"
    assert cfg.partition("slinky").node_features == ("slinky",) and cfg.default_partition is not None


def test_use_client_ids_goes_with_other_auth_info_items(tmp_path: Path) -> None:
    cfg = load(tmp_path, "AuthInfo=use_client_ids,socket=agent.sock\n")
    assert cfg.auth_socket == tmp_path / "agent.sock"
    assert "expected name=value" in error_of(tmp_path, "AuthInfo=use_client_idz\n")


@pytest.mark.parametrize("line", ["AuthType=auth/munge", "CredType=cred/munge", "AuthType=AUTH/SLURM",
                                  "AuthAltTypes=auth/jwt", "MetricsType=metrics/openmetrics"])
def test_plugins_pyslurm_serves_are_accepted(tmp_path: Path, line: str) -> None:
    assert load(tmp_path, line + "\n").value(line.partition("=")[0]) == line.partition("=")[2]


@pytest.mark.parametrize(("line", "message"), [
    ("AuthType=auth/none", "AuthType=auth/none is not supported by pyslurm: expected auth/slurm or auth/munge"),
    ("CredType=cred/none", "CredType=cred/none is not supported by pyslurm: expected cred/slurm or cred/munge"),
    ("AuthAltTypes=auth/jwt,auth/x", "AuthAltTypes=auth/x is not supported by pyslurm: expected auth/jwt"),
    ("MetricsType=metrics/none", "MetricsType=metrics/none is not supported by pyslurm: "
                                 "expected metrics/openmetrics"),
])
def test_plugins_pyslurm_cannot_honour_are_refused_at_their_line(tmp_path: Path, line: str, message: str) -> None:
    assert error_of(tmp_path, line + "\n") == f"{tmp_path / 'slurm.conf'}:3: {message}"
