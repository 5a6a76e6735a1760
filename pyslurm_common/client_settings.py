"""What a CLI needs from slurm.conf: where the local auth agent listens.

Every CLI call reads this, so it only tokenizes the file (conf_syntax) and
picks `AuthInfo`, instead of building and validating the whole cluster
configuration (config.load_config, which the daemons use and which shares
`auth_info` and `config_path` from here).
"""
from __future__ import annotations

import os
from pathlib import Path

from .conf_syntax import Token, read_conf

DEFAULT_CONF = Path("/etc/pyslurm/slurm.conf")
DEFAULT_AUTH_SOCKET = Path("/run/pyslurm/auth.socket")
DEFAULT_KEY_NAME = "slurm.key"


def config_path() -> Path:
    """``$PYSLURM_CONF``, else ``$SLURM_CONF``, else /etc/pyslurm/slurm.conf."""
    for var in ("PYSLURM_CONF", "SLURM_CONF"):
        value = os.environ.get(var)
        if value:
            return Path(value)
    return DEFAULT_CONF


def auth_info(tok: Token | None, conf_dir: Path) -> dict[str, Path]:
    """``AuthInfo=socket=<path>,key=<path>,ttl=N``: the two paths we use (relative → conf dir)."""
    result: dict[str, Path] = {}
    if tok is None:
        return result
    for item in tok.value.split(","):
        name, sep, value = item.partition("=")
        name = name.strip().lower()
        if name and not sep:
            raise tok.error(f"invalid AuthInfo item {item!r}: expected name=value")
        if name in ("socket", "key"):
            result[name] = conf_dir / value.strip()
    return result


def auth_socket(path: Path | None = None) -> Path:
    """The auth agent's socket named by slurm.conf (last AuthInfo wins, as for any key)."""
    path = path or config_path()
    found: Token | None = None
    for tokens in read_conf(path):
        for tok in tokens:
            if tok.lower == "authinfo":
                found = tok
    return auth_info(found, path.parent).get("socket", DEFAULT_AUTH_SOCKET)
