"""What a CLI needs from slurm.conf: where the local auth agent listens.

Every CLI call reads this, so it only tokenizes the file (conf_syntax) and
picks `AuthInfo`, instead of building and validating the whole cluster
configuration (config.load_config, which the daemons use and which shares
`auth_info` and `config_path` from here). Paths are plain strings: pathlib's
import would cost every CLI call more than the rest of this.
"""
from __future__ import annotations

import os
from collections.abc import Iterator

from .conf_syntax import ConfigError, Token, read_conf

DEFAULT_CONF = "/etc/pyslurm/slurm.conf"
DEFAULT_AUTH_SOCKET = "/run/pyslurm/auth.socket"
DEFAULT_KEY_NAME = "slurm.key"


def config_path() -> str:
    """``$PYSLURM_CONF``, else ``$SLURM_CONF``, else /etc/pyslurm/slurm.conf."""
    for var in ("PYSLURM_CONF", "SLURM_CONF"):
        value = os.environ.get(var)
        if value:
            return value
    return DEFAULT_CONF


def auth_info(tok: Token | None, conf_dir: str) -> dict[str, str]:
    """``AuthInfo=socket=<path>,key=<path>,ttl=N``: the two paths we use (relative → conf dir)."""
    result: dict[str, str] = {}
    if tok is None:
        return result
    for item in tok.value.split(","):
        name, sep, value = item.partition("=")
        name = name.strip().lower()
        if name and not sep:
            raise tok.error(f"invalid AuthInfo item {item!r}: expected name=value")
        if name in ("socket", "key"):
            result[name] = os.path.join(conf_dir, value.strip())
    return result


def controller_role(index: int, count: int) -> str:
    """Slurm's word for the `index`-th of `count` SlurmctldHosts: primary, backup, or backupN."""
    if index == 0:
        return "primary"
    return "backup" if count == 2 else f"backup{index}"


_OWN_LINES: dict[str, tuple[list[Token], ...]] = {}


def _lines(path: str | None) -> tuple[list[Token], ...] | Iterator[list[Token]]:
    """The logical lines of `path`, or of this process's own slurm.conf when None: that one is
    read once per process, as Slurm's commands read theirs (srun asks it for the auth socket,
    MpiDefault, SrunProlog and SrunEpilog: four reads before). An explicit path is read afresh."""
    if path:
        return read_conf(path)
    own = config_path()
    if own not in _OWN_LINES:
        _OWN_LINES[own] = tuple(read_conf(own))
    return _OWN_LINES[own]


def controller_names(path: str | None = None) -> list[str]:
    """The SlurmctldHost names in order (primary first), read without validating the rest of
    the file (scontrol ping must work while slurm.conf has a mistake elsewhere)."""
    hosts: list[str] = []
    legacy: dict[str, str] = {}
    for tokens in _lines(path):
        for tok in tokens:
            if tok.lower == "slurmctldhost":
                hosts.append(tok.value.partition("(")[0])
            elif tok.lower in ("controlmachine", "backupcontroller"):
                legacy[tok.lower] = tok.value
    return hosts or [legacy[key] for key in ("controlmachine", "backupcontroller") if key in legacy]


def conf_value(key: str, path: str | None = None) -> str:
    """The last value of `key` in slurm.conf ("" when absent or unreadable), for a CLI default."""
    found = ""
    try:
        for tokens in _lines(path):
            for tok in tokens:
                if tok.lower == key.lower():
                    found = tok.value
    except (OSError, ConfigError):   # srun goes on; the daemons report a broken file
        return ""
    return found


def failover_wait() -> float:
    """The longest the auth agent may look for a controller in charge before it sends a request
    on (controller_channel.Patience: MessageTimeout rounds, 1.5 x SlurmctldTimeout while a backup
    stands by), so that a command waits through a failover for the agent's answer."""
    def seconds(key: str, default: int) -> int:
        value = conf_value(key)
        return int(value) if value.isdigit() else default
    return seconds("MessageTimeout", 10) + 1.5 * seconds("SlurmctldTimeout", 120)


def auth_socket(path: str | None = None) -> str:
    """The auth agent's socket named by slurm.conf (last AuthInfo wins, as for any key)."""
    found: Token | None = None
    for tokens in _lines(path):
        for tok in tokens:
            if tok.lower == "authinfo":
                found = tok
    return auth_info(found, os.path.dirname(path or config_path())).get("socket", DEFAULT_AUTH_SOCKET)
