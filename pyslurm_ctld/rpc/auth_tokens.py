"""`scontrol token`: the controller mints auth/jwt tokens, as slurmctld does.

The controller (SlurmUser) is the one daemon that can read the JWT key and knows who
SlurmUser is, so the rules live here: anyone may get a token for themselves; only
root/SlurmUser may name another user (Slurm's "Invalid user id" otherwise).
"""
from __future__ import annotations

import logging

from pyslurm_common import jwt_tokens
from pyslurm_common.config import SlurmConfig
from pyslurm_common.errors import SlurmError, Strerror

log = logging.getLogger(__name__)


def issue_token(cfg: SlurmConfig, caller_uid: int, caller_name: str, requested_user: str,
                lifespan: int, privileged: bool, now: float) -> str:
    """A signed token for `requested_user` ("" the caller) valid `lifespan` seconds (0 the default)."""
    if not jwt_tokens.enabled(cfg):
        log.error("attempt to retrieve a token while auth/jwt is not in AuthAltTypes, uid=%d", caller_uid)
        raise SlurmError(Strerror.PLUGIN_NOT_LOADED)
    user = requested_user or caller_name
    if user != caller_name and not privileged:
        log.error("attempt to retrieve a token for a different user=%s by uid=%d", requested_user, caller_uid)
        raise SlurmError(Strerror.INVALID_USER_ID)
    if not caller_name and not requested_user:
        raise SlurmError(Strerror.INVALID_USER_ID)
    try:
        key = jwt_tokens.load_key(jwt_tokens.key_path(cfg))
        return jwt_tokens.mint(key, user, lifespan or jwt_tokens.DEFAULT_LIFESPAN, now)
    except jwt_tokens.TokenError as exc:
        log.error("error generating auth token: %s", exc)
        raise SlurmError(Strerror.TOKEN_GENERATION_FAILED) from exc
