"""auth/jwt tokens: HS256 JSON Web Tokens naming a user, as Slurm's `scontrol token` makes them.

Claims as Slurm's: ``sun`` (the user name), ``iat`` (issued at) and ``exp`` (expiry; Slurm's
``lifespan=infinite`` is INT_MAX-1 seconds). Tokens exist only with ``AuthAltTypes=auth/jwt``. The key is ``jwt_hs256.key`` in StateSaveLocation unless
``AuthAltParameters=jwt_key=<path>`` names another; it is readable by root and SlurmUser only,
so only the controller (which mints tokens for `scontrol token`) and the local auth agent (which
verifies them for pyslurmrestd) can use it.
"""
from __future__ import annotations

import os
import pwd
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

import jwt

from .auth import Identity
from .config import SlurmConfig

KEY_NAME = "jwt_hs256.key"
DEFAULT_LIFESPAN = 1800         # seconds, as scontrol token's default
MAX_LIFESPAN = 2**31 - 2        # INT_MAX - 1: what scontrol sends for lifespan=infinite
_ALGORITHM = "HS256"
_MIN_KEY_BYTES = 32


class TokenError(Exception):
    """A token was malformed, forged or expired, or the key could not be used."""


@dataclass(frozen=True, slots=True)
class TokenClaims:
    user_name: str
    issued: int
    expires: int


def enabled(cfg: SlurmConfig) -> bool:
    """``AuthAltTypes`` names auth/jwt: tokens may be made and used."""
    return "auth/jwt" in [t.strip().lower() for t in (cfg.value("AuthAltTypes") or "").split(",")]


def key_path(cfg: SlurmConfig) -> Path:
    """``AuthAltParameters=jwt_key=<path>``, else StateSaveLocation/jwt_hs256.key."""
    for item in (cfg.value("AuthAltParameters") or "").split(","):
        name, sep, value = item.partition("=")
        if sep and name.strip().lower() == "jwt_key" and value.strip():
            return Path(value.strip())
    return cfg.state_save_location / KEY_NAME


def generate_key(path: Path) -> None:
    """A new random HS256 key, mode 0600; an existing key is kept (tokens stay valid)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    with os.fdopen(fd, "wb") as f:
        f.write(secrets.token_bytes(_MIN_KEY_BYTES))


def load_key(path: Path) -> bytes:
    try:
        key = path.read_bytes()
    except OSError as exc:
        raise TokenError(f"cannot read JWT key {path}: {exc.strerror}") from exc
    if len(key) < _MIN_KEY_BYTES:
        raise TokenError(f"JWT key {path} is too short")
    return key


def mint(key: bytes, user_name: str, lifespan: int, now: float | None = None) -> str:
    issued = int(time.time() if now is None else now)
    if not 0 < lifespan <= MAX_LIFESPAN:
        raise TokenError(f"invalid token lifespan {lifespan}")
    return jwt.encode({"iat": issued, "exp": issued + lifespan, "sun": user_name}, key, algorithm=_ALGORITHM)


def verify(key: bytes, token: str, now: float | None = None) -> TokenClaims:
    """The claims of a token signed with `key` that has not expired; TokenError otherwise."""
    if len(token) > 8192:
        raise TokenError("token too long")
    try:
        claims = jwt.decode(token, key, algorithms=[_ALGORITHM], options={"verify_exp": False, "verify_iat": False})
    except jwt.PyJWTError as exc:
        raise TokenError(f"invalid token: {exc}") from exc
    user, issued, expires = claims.get("sun"), claims.get("iat", 0), claims.get("exp")
    if not isinstance(user, str) or not user or not isinstance(issued, int) or not isinstance(expires, int):
        raise TokenError("invalid token: no user name or expiry")
    if expires <= (time.time() if now is None else now):
        raise TokenError("token expired")
    return TokenClaims(user_name=user, issued=issued, expires=expires)


def token_identity(cfg: SlurmConfig, token: str, user_name: str, host: str, now: float | None = None) -> Identity:
    """Who a token speaks for, as the local auth agent signs for it: the token's user, or the
    ``X-SLURM-USER-NAME`` user when the token is root's or SlurmUser's (Slurm's auth/jwt rule).
    TokenError when tokens are off (no auth/jwt in AuthAltTypes), the token is bad or expired, the
    name is someone else's, or the user does not exist here."""
    if not enabled(cfg):
        raise TokenError("auth/jwt is not in AuthAltTypes")
    claims = verify(load_key(key_path(cfg)), token, now)
    name = user_name or claims.user_name
    if name != claims.user_name and claims.user_name not in ("root", cfg.slurm_user):
        raise TokenError(f"token of {claims.user_name} may not act as {name}")
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        raise TokenError(f"unknown user {name}") from None
    return Identity(uid=entry.pw_uid, gid=entry.pw_gid, host=host)
