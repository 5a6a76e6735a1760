"""What a CLI needs from slurm.conf: where the local auth agent listens.

Every CLI call reads this, so it only tokenizes the file (conf_syntax) and
picks `AuthInfo`, instead of building and validating the whole cluster
configuration (config.load_config, which the daemons use and which shares
`auth_info` and `config_path` from here). Paths are plain strings: pathlib's
import would cost every CLI call more than the rest of this.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

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


# AuthInfo's flag items. use_client_ids (auth/slurm: trust the uid/gid the client's credential
# carries, without the OS's user database) is how pyslurm always authenticates: the local agent
# signs the caller's SO_PEERCRED ids.
_AUTH_INFO_FLAGS = frozenset({"use_client_ids"})


def auth_info(tok: Token | None, conf_dir: str) -> dict[str, str]:
    """``AuthInfo=socket=<path>,key=<path>,ttl=N``: the two paths we use (relative → conf dir)."""
    result: dict[str, str] = {}
    if tok is None:
        return result
    for item in tok.value.split(","):
        name, sep, value = item.partition("=")
        name = name.strip().lower()
        if name and not sep and name not in _AUTH_INFO_FLAGS:
            raise tok.error(f"invalid AuthInfo item {item!r}: expected name=value")
        if name in ("socket", "key"):
            result[name] = os.path.join(conf_dir, value.strip())
    return result


def controller_role(index: int, count: int) -> str:
    """Slurm's word for the `index`-th of `count` SlurmctldHosts: primary, backup, or backupN."""
    if index == 0:
        return "primary"
    return "backup" if count == 2 else f"backup{index}"


UNUSABLE = "Unable to process configuration file"   # Slurm's fatal line for a file it refuses whole


class UnusableConfig(ConfigError):
    """A slurm.conf without ClusterName (an empty file, another program's configuration): Slurm's
    commands and daemons refuse it whole rather than reach some other cluster. `notes` are the
    lines Slurm prints before its `fatal: Unable to process configuration file`, each as
    (severity, text), severity "" for a line without one."""

    def __init__(self, path: str, notes: tuple[tuple[str, str], ...]) -> None:
        super().__init__(path, None, "ClusterName needs to be specified")
        self.notes = notes

    def report(self, prog: str) -> str:
        """The lines as Slurm 22.05 prints them (`sinfo` with an empty SLURM_CONF)."""
        lines = [f"{prog}: {severity + ': ' if severity else ''}{text}" for severity, text in self.notes]
        return "\n".join([*lines, f"{prog}: fatal: {UNUSABLE}"])


def check_usable(path: str, lines: "Iterable[list[Token]]") -> None:
    """Raise UnusableConfig unless `lines` (all of slurm.conf at `path`) set ClusterName."""
    lines = list(lines)
    if any(tok.lower == "clustername" for tokens in lines for tok in tokens):
        return
    from .config import known_global_key    # only a broken file pays for the key table

    notes: list[tuple[str, str]] = []
    if not lines and os.path.isfile(path) and os.path.getsize(path) == 0:
        notes.append(("", f's_p_parse_file: file "{path}" is empty'))
    notes += [("error", f"_parse_next_key: Parsing error at unrecognized key: {tok.key}")
              for tokens in lines if not known_global_key(tokens[0].lower, record=True)
              for tok in tokens if not known_global_key(tok.lower)]
    notes.append(("error", "ClusterName needs to be specified"))
    raise UnusableConfig(path, tuple(notes))


_OWN_LINES: dict[str, tuple[list[Token], ...]] = {}


def _lines(path: str | None) -> tuple[list[Token], ...] | Iterator[list[Token]]:
    """The logical lines of `path`, or of this process's own slurm.conf when None: that one is
    read once per process, as Slurm's commands read theirs (srun asks it for the auth socket,
    MpiDefault, SrunProlog and SrunEpilog: four reads before). An explicit path is read afresh."""
    if path:
        return read_conf(path)
    own = config_path()
    if own not in _OWN_LINES:
        lines = tuple(read_conf(own))
        check_usable(own, lines)
        _OWN_LINES[own] = lines
    return _OWN_LINES[own]


def check_own_config() -> None:
    """Slurm's commands read slurm.conf before anything else, --help and --version included, and
    stop at a file they refuse whole (UnusableConfig); so do ours. A file that is not there is
    left to the first part of the command that needs it to report."""
    if os.path.isfile(config_path()):
        _lines(None)


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
    """The auth agent's socket named by slurm.conf (last AuthInfo wins, as for any key).

    The default socket is the agent of the cluster configured in /etc/pyslurm/slurm.conf: a file
    elsewhere that names another cluster (a copy of a real Slurm's slurm.conf, say) and no socket
    is refused, as the daemons refuse it (shared_defaults.py), rather than answered by that cluster."""
    found: Token | None = None
    cluster = ""
    for tokens in _lines(path):
        for tok in tokens:
            if tok.lower == "authinfo":
                found = tok
            elif tok.lower == "clustername":
                cluster = tok.value.lower()
    conf = path or config_path()
    socket = auth_info(found, os.path.dirname(conf)).get("socket")
    if socket is None and _elsewhere(conf) and cluster != _host_cluster():
        raise ConfigError(conf, None, "AuthInfo=socket=<path> must be set: the default socket belongs to the "
                                      f"cluster configured in {DEFAULT_CONF}")
    return socket or DEFAULT_AUTH_SOCKET


def _elsewhere(conf: str) -> bool:
    return os.path.realpath(conf) != os.path.realpath(DEFAULT_CONF)


def _host_cluster() -> str:
    """The ClusterName of /etc/pyslurm/slurm.conf ("" when it cannot be read)."""
    return conf_value("ClusterName", DEFAULT_CONF).lower() if os.path.isfile(DEFAULT_CONF) else ""
