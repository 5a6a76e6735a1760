"""slurm.conf's plugin keys for authentication and metrics: which values pyslurm honours.

pyslurm has one way to authenticate (credentials signed with the cluster key, slurm.key beside
slurm.conf unless AuthInfo=key= names another; DESIGN.md, Auth), one way to sign job
credentials (the same key), JWTs as the one alternative (scontrol token, pyslurmrestd), and one
metrics plugin (OpenMetrics through pyslurmrestd). Slurm's plugins that mean the same are
accepted: auth/slurm and cred/slurm are that design (a shared key file), and auth/munge and
cred/munge are served the same way, so a real Slurm's slurm.conf keeps working. Anything else
would be a promise pyslurm cannot keep (auth/none, say): it is a :class:`ConfigError` at the
file:line that gave it, fatal for a daemon at start.
"""
from __future__ import annotations

from collections.abc import Mapping

from pyslurm_common.conf_syntax import Token

# lower-case key -> the values it may take (lower case); several keys take comma lists.
_HONOURED: dict[str, tuple[str, ...]] = {
    "authtype": ("auth/slurm", "auth/munge"),
    "credtype": ("cred/slurm", "cred/munge"),
    "authalttypes": ("auth/jwt",),
    "metricstype": ("metrics/openmetrics",),
}
_LISTS = frozenset({"authalttypes"})


def check_plugins(store: Mapping[str, Token]) -> None:
    """Raise ConfigError for a plugin key whose value pyslurm cannot honour."""
    for key, honoured in _HONOURED.items():
        tok = store.get(key)
        if tok is None or not tok.value:
            continue
        words = tok.value.lower().split(",") if key in _LISTS else [tok.value.lower()]
        for word in (w.strip() for w in words):
            if word and word not in honoured:
                raise tok.error(f"{tok.key}={word} is not supported by pyslurm: expected {' or '.join(honoured)}")
