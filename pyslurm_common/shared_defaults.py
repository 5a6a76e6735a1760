"""Settings a daemon may not take from the host-wide defaults unless its slurm.conf is the host's.

Besides what the parser requires of every slurm.conf (ClusterName and SlurmctldHost, as Slurm),
pyslurm has defaults that are one per host: the auth agent's socket (/run/pyslurm/auth.socket),
the controller's StateSaveLocation (/var/spool/pyslurm/ctld) and the node agent's SlurmdSpoolDir
(/var/spool/pyslurm/d). They belong to the cluster configured at the default place,
/etc/pyslurm/slurm.conf. A slurm.conf anywhere else that leaves them out would silently share
them with that cluster: its daemons would have credentials signed by that cluster's agent, replay
its journal, adopt its steps. Such a file must name them; the host's own file may rely on them.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .client_settings import DEFAULT_CONF

if TYPE_CHECKING:
    from .config import SlurmConfig

# What each setting is called in the error, and how to tell it was written.
_HOST_WIDE = (
    ("AuthInfo=socket=<path>", lambda cfg: "socket=" in (cfg.value("AuthInfo") or "").lower()),
    ("StateSaveLocation", lambda cfg: bool(cfg.value("StateSaveLocation"))),
    ("SlurmdSpoolDir", lambda cfg: bool(cfg.value("SlurmdSpoolDir"))),
)


def missing_host_settings(cfg: "SlurmConfig") -> list[str]:
    """The host-wide settings `cfg` leaves to their defaults although it is not the host's slurm.conf."""
    if os.path.realpath(cfg.path) == os.path.realpath(DEFAULT_CONF):
        return []
    return [name for name, given in _HOST_WIDE if not given(cfg)]


def refusal(cfg: "SlurmConfig") -> str | None:
    """The fatal message for a daemon started on `cfg`, or None when nothing is missing."""
    missing = missing_host_settings(cfg)
    if not missing:
        return None
    return (f"{cfg.path}: {', '.join(missing)} must be set: the defaults belong to the cluster "
            f"configured in {DEFAULT_CONF}")
