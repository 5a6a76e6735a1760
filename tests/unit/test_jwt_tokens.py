"""auth/jwt tokens (pyslurm_common.jwt_tokens) and who may mint them (pyslurm_ctld.rpc.auth_tokens)."""
from __future__ import annotations

from pathlib import Path

import jwt
import pytest

from pyslurm_common import jwt_tokens
from pyslurm_common.config import load_config
from pyslurm_common.errors import SlurmError
from pyslurm_ctld.rpc.auth_tokens import issue_token

KEY = b"k" * 32


def test_round_trip_and_expiry() -> None:
    token = jwt_tokens.mint(KEY, "alice", 1800, now=1000)
    assert jwt_tokens.verify(KEY, token, now=2000) == jwt_tokens.TokenClaims("alice", 1000, 2800)
    with pytest.raises(jwt_tokens.TokenError, match="expired"):
        jwt_tokens.verify(KEY, token, now=2800)


def test_forged_or_malformed_tokens_are_refused() -> None:
    token = jwt_tokens.mint(KEY, "alice", 60, now=1000)
    with pytest.raises(jwt_tokens.TokenError):
        jwt_tokens.verify(b"x" * 32, token, now=1001)
    unsigned = jwt.encode({"sun": "root", "iat": 1000, "exp": 5000}, None, algorithm="none")
    with pytest.raises(jwt_tokens.TokenError):
        jwt_tokens.verify(KEY, unsigned, now=1001)
    no_expiry = jwt.encode({"sun": "root", "iat": 1000}, KEY, algorithm="HS256")
    with pytest.raises(jwt_tokens.TokenError, match="expiry"):
        jwt_tokens.verify(KEY, no_expiry, now=1001)
    with pytest.raises(jwt_tokens.TokenError):
        jwt_tokens.verify(KEY, "x" * 10000)


def test_lifespan_is_bounded() -> None:
    for bad in (0, -1, jwt_tokens.MAX_LIFESPAN + 1):
        with pytest.raises(jwt_tokens.TokenError):
            jwt_tokens.mint(KEY, "alice", bad)


def _config(tmp_path: Path, extra: str) -> object:
    conf = tmp_path / "slurm.conf"
    conf.write_text(f"ClusterName=c\nSlurmctldHost=h\nStateSaveLocation={tmp_path}\n{extra}\n"
                    "NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1 Default=YES\n")
    return load_config(conf)


def test_key_file_is_created_once_private(tmp_path: Path) -> None:
    path = tmp_path / "jwt_hs256.key"
    jwt_tokens.generate_key(path)
    first = path.read_bytes()
    jwt_tokens.generate_key(path)
    assert path.read_bytes() == first and len(first) == 32
    assert path.stat().st_mode & 0o777 == 0o600
    cfg = _config(tmp_path, f"AuthAltParameters=jwt_key={tmp_path}/other.key")
    assert jwt_tokens.key_path(cfg) == tmp_path / "other.key"   # type: ignore[arg-type]


def test_only_privileged_callers_name_another_user(tmp_path: Path) -> None:
    cfg = _config(tmp_path, "AuthAltTypes=auth/jwt")
    jwt_tokens.generate_key(tmp_path / "jwt_hs256.key")
    key = jwt_tokens.load_key(tmp_path / "jwt_hs256.key")
    own = issue_token(cfg, 1001, "alice", "", 0, False, 1000.0)       # type: ignore[arg-type]
    assert jwt_tokens.verify(key, own, now=1001) == jwt_tokens.TokenClaims("alice", 1000, 2800)
    assert jwt_tokens.verify(key, issue_token(cfg, 1001, "alice", "alice", 60, False, 1000.0),   # type: ignore[arg-type]
                             now=1001).user_name == "alice"
    with pytest.raises(SlurmError, match="Invalid user id"):
        issue_token(cfg, 1001, "alice", "bob", 0, False, 1000.0)     # type: ignore[arg-type]
    assert jwt_tokens.verify(key, issue_token(cfg, 0, "root", "bob", 0, True, 1000.0),   # type: ignore[arg-type]
                             now=1001).user_name == "bob"


def test_tokens_need_auth_jwt_in_auth_alt_types(tmp_path: Path) -> None:
    cfg = _config(tmp_path, "")
    with pytest.raises(SlurmError, match="Required plugin type not loaded"):
        issue_token(cfg, 0, "root", "", 0, True, 1000.0)     # type: ignore[arg-type]


def test_token_identity_is_the_token_user_or_root_s_choice(tmp_path: Path) -> None:
    import pwd

    cfg = _config(tmp_path, "AuthAltTypes=auth/jwt\nSlurmUser=root")
    jwt_tokens.generate_key(tmp_path / "jwt_hs256.key")
    key = jwt_tokens.load_key(tmp_path / "jwt_hs256.key")
    someone = next(p for p in pwd.getpwall() if p.pw_uid != 0)
    token = jwt_tokens.mint(key, someone.pw_name, 60)
    identity = jwt_tokens.token_identity(cfg, token, "", "h")             # type: ignore[arg-type]
    assert (identity.uid, identity.gid, identity.host) == (someone.pw_uid, someone.pw_gid, "h")
    with pytest.raises(jwt_tokens.TokenError, match="may not act as root"):
        jwt_tokens.token_identity(cfg, token, "root", "h")                 # type: ignore[arg-type]
    root_token = jwt_tokens.mint(key, "root", 60)
    assert jwt_tokens.token_identity(cfg, root_token, someone.pw_name, "h").uid == someone.pw_uid  # type: ignore[arg-type]
    with pytest.raises(jwt_tokens.TokenError, match="unknown user"):
        jwt_tokens.token_identity(cfg, jwt_tokens.mint(key, "no-such-user-x", 60), "", "h")  # type: ignore[arg-type]
    with pytest.raises(jwt_tokens.TokenError, match="AuthAltTypes"):
        jwt_tokens.token_identity(_config(tmp_path, ""), token, "", "h")   # type: ignore[arg-type]
