"""What SlurmUser is given (slurm_user.owned_paths)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pyslurm_common.cluster_files import ClusterSpec, NodeSpec, render_dbd_conf, render_slurm_conf
from pyslurm_common.config import ConfigError, DbdConfig, SlurmConfig, load_config, load_dbd_config
from pyslurm_common.slurm_user import give_to_slurm_user, owned_paths, sqlite_file


def _configs(tmp_path: Path, state_dir: Path, *extra_dbd: str) -> tuple[SlurmConfig, DbdConfig]:
    spec = ClusterSpec(cluster_name="c", conf_dir=tmp_path / "etc", state_dir=state_dir, run_dir=tmp_path / "run",
                       nodes=(NodeSpec("n1", 1, 100),), slurm_user="slurm")
    spec.conf_dir.mkdir()
    spec.slurm_conf.write_text(render_slurm_conf(spec))
    (spec.conf_dir / "slurmdbd.conf").write_text(render_dbd_conf(spec) + "".join(f"{line}\n" for line in extra_dbd))
    return load_config(spec.slurm_conf), load_dbd_config(spec.conf_dir / "slurmdbd.conf")


def test_quickstart_layout_gives_state_accounting_and_log_directories(tmp_path: Path) -> None:
    state = tmp_path / "var" / "lib" / "pyslurm"
    cfg, dbd = _configs(tmp_path, state)
    assert cfg.slurm_user == "slurm"
    owned = owned_paths(cfg, dbd)
    assert owned.trees == (state / "ctld", state / "accounting", state / "log")
    assert owned.files == ()
    assert owned.secrets == (tmp_path / "etc" / "slurm.key", tmp_path / "etc" / "slurmdbd.conf")
    assert sqlite_file(dbd) == state / "accounting" / "slurm_acct_db.sqlite"


def test_shared_directories_are_never_given_only_the_files_in_them(tmp_path: Path) -> None:
    cfg, dbd = _configs(tmp_path, Path("/var"), "LogFile=/var/log/pyslurmdbd.log")
    owned = owned_paths(cfg, dbd)
    # StateSaveLocation=/var/ctld is the controller's own; /var holds it, so nothing beside it is given
    assert owned.trees == (Path("/var/ctld"),)
    assert owned.files == (Path("/var/accounting/slurm_acct_db.sqlite"), Path("/var/log/pyslurmctld.log"),
                           Path("/var/log/pyslurmdbd.log"))


def test_server_database_has_no_file_to_give(tmp_path: Path) -> None:
    cfg, dbd = _configs(tmp_path, tmp_path / "a" / "b" / "state", "StorageType=accounting_storage/mysql")
    assert sqlite_file(dbd) is None
    assert tmp_path / "a" / "b" / "state" / "accounting" not in owned_paths(cfg, dbd).trees



def test_a_slurm_user_that_does_not_exist_is_a_configuration_error(tmp_path: Path) -> None:
    cfg, _ = _configs(tmp_path, tmp_path / "state")
    cfg.path.write_text(cfg.path.read_text().replace("SlurmUser=slurm", "SlurmUser=nosuchpyslurmuser"))
    with pytest.raises(ConfigError, match="SlurmUser nosuchpyslurmuser does not exist"):
        give_to_slurm_user(cfg.path)
