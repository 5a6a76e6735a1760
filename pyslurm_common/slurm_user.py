"""SlurmUser's files: the account the controller and the accounting daemon run as, and what
it must own (as Slurm's install does for slurm): StateSaveLocation, the SQLite accounting
directory and the daemons' log directory (mode 0700), the cluster key and slurmdbd.conf
(0600, they hold secrets). Used by install.sh, pyslurm-quickstart and the test fixture.

The daemons drop root to SlurmUser themselves at start (daemon_runtime.become_slurm_user);
pyslurmd and pyslurmsackd stay root and read the key as root.
"""
from __future__ import annotations

import os
import pwd
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .config import ConfigError, DbdConfig, SlurmConfig, load_config, load_dbd_config

SYSTEM_USER = "slurm"
SYSTEM_USER_HOME = Path("/var/lib/pyslurm")
PRIVATE_DIR_MODE = 0o700
SECRET_FILE_MODE = 0o600


@dataclass(frozen=True, slots=True)
class OwnedPaths:
    """What SlurmUser gets: directories with everything below them, single files, secrets."""

    trees: tuple[Path, ...]
    files: tuple[Path, ...]
    secrets: tuple[Path, ...]


def sqlite_file(dbd: DbdConfig) -> Path | None:
    prefix = "sqlite:///"
    return Path(dbd.storage_url[len(prefix):]) if dbd.storage_url.startswith(prefix) else None


def owned_paths(cfg: SlurmConfig, dbd: DbdConfig | None) -> OwnedPaths:
    """StateSaveLocation is the controller's alone; the accounting database's and the log files'
    directories are given whole only inside pyslurm's own state tree (the directory holding
    StateSaveLocation, as quickstart lays it out), never a shared one such as /var/log, where
    only the files themselves are given."""
    own_root = cfg.state_save_location.parent
    dedicated = len(own_root.parts) >= 4     # /var/lib/pyslurm yes; /var/spool, /var no

    def mine(directory: Path) -> bool:
        return dedicated and own_root in directory.parents

    trees: list[Path] = [cfg.state_save_location]
    files: list[Path] = []
    database = sqlite_file(dbd) if dbd is not None else None
    logs = [Path(p) for p in (cfg.slurmctld_log_file, dbd.log_file if dbd is not None else None) if p]
    for path in ([database] if database is not None else []) + logs:
        if mine(path.parent):
            if path.parent not in trees:
                trees.append(path.parent)
        else:
            files.append(path)
    secrets = [cfg.key_file] + ([dbd.path] if dbd is not None else [])
    return OwnedPaths(tuple(trees), tuple(files), tuple(secrets))


def ensure_system_user(name: str = SYSTEM_USER) -> None:
    """Create the system account (and its group) unless it exists; it logs in nowhere."""
    try:
        pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--home-dir",
                        str(SYSTEM_USER_HOME), "--shell", "/usr/sbin/nologin", name], check=True)


def give_to_slurm_user(conf: Path) -> None:
    """Create SlurmUser's directories and hand them, the key and slurmdbd.conf to it; nothing
    to do while SlurmUser is root (an installation from before SlurmUser stays as it was)."""
    cfg = load_config(conf)
    if cfg.slurm_user == "root":
        return
    dbd_conf = conf.parent / "slurmdbd.conf"
    dbd = load_dbd_config(dbd_conf) if dbd_conf.exists() else None
    try:
        user = pwd.getpwnam(cfg.slurm_user)
    except KeyError:
        raise ConfigError(conf, None, f"SlurmUser {cfg.slurm_user} does not exist") from None
    owned = owned_paths(cfg, dbd)
    for tree in owned.trees:
        tree.mkdir(parents=True, exist_ok=True)
        os.chmod(tree, PRIVATE_DIR_MODE)
        for directory, _, names in os.walk(tree):
            for path in [directory, *(os.path.join(directory, name) for name in names)]:
                os.chown(path, user.pw_uid, user.pw_gid, follow_symlinks=False)
    for path in owned.files:
        if path.exists():
            os.chown(path, user.pw_uid, user.pw_gid)
    for path in owned.secrets:
        if path.exists():
            os.chown(path, user.pw_uid, user.pw_gid)
            os.chmod(path, SECRET_FILE_MODE)
