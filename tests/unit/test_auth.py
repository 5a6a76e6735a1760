"""Per-RPC credentials (pyslurm_common/auth.py): signing, verification, replay cache, key files."""
from __future__ import annotations

import hashlib
import hmac
import os
import stat
from pathlib import Path

import pytest

from pyslurm_common.auth import (CLOCK_SKEW, DEFAULT_TTL, AuthError, Identity, Verifier, generate_key, load_key,
                                 sign)

KEY = b"k" * 64
ALICE = Identity(uid=1000, gid=100, host="login1")
T0 = 1_700_000_000.0


class FakeClock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def verifier(now: float = T0, key: bytes = KEY) -> tuple[Verifier, FakeClock]:
    clock = FakeClock(now)
    return Verifier(key, clock=clock), clock


def resign(fields: list[str], key: bytes = KEY) -> str:
    """A credential with the given payload fields and a valid signature (to test the parser)."""
    payload = " ".join(fields)
    return f"{payload} {hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()}"


def rejection(v: Verifier, credential: str | None) -> str:
    with pytest.raises(AuthError) as info:
        v.verify(credential)
    return str(info.value)


# ---- sign / verify ---------------------------------------------------------------------------


def test_round_trip() -> None:
    v, _ = verifier()
    cred = sign(KEY, ALICE, now=T0)
    assert v.verify(cred) == ALICE
    assert not ALICE.is_root and Identity(0, 0, "head").is_root


def test_credential_layout() -> None:
    fields = sign(KEY, ALICE, now=T0, ttl=90).split(" ")
    assert fields[:6] == ["v1", "1000", "100", "login1", str(int(T0)), str(int(T0) + 90)]
    assert len(fields[6]) == 24 and int(fields[6], 16) >= 0          # nonce: 12 random bytes, hex
    assert len(fields[7]) == 64                                       # hmac-sha256 hex


def test_every_credential_has_a_fresh_nonce() -> None:
    assert len({sign(KEY, ALICE, now=T0).split(" ")[6] for _ in range(50)}) == 50


def test_wrong_key_is_refused() -> None:
    v, _ = verifier(key=b"x" * 64)
    assert rejection(v, sign(KEY, ALICE, now=T0)) == "invalid credential signature"


@pytest.mark.parametrize(("index", "value"), [(1, "0"), (2, "0"), (3, "head"), (4, str(int(T0) + 1)),
                                              (5, str(int(T0) + 99999)), (6, "0" * 24)],
                         ids=["uid", "gid", "host", "issued", "expires", "nonce"])
def test_tampered_fields_are_refused(index: int, value: str) -> None:
    v, _ = verifier()
    fields = sign(KEY, ALICE, now=T0).split(" ")
    fields[index] = value
    assert rejection(v, " ".join(fields)) == "invalid credential signature"


def test_tampered_signature_is_refused() -> None:
    v, _ = verifier()
    cred = sign(KEY, ALICE, now=T0)
    flipped = cred[:-1] + ("0" if cred[-1] != "0" else "1")
    assert rejection(v, flipped) == "invalid credential signature"


@pytest.mark.parametrize("credential", [None, ""])
def test_missing_credential(credential: str | None) -> None:
    assert rejection(verifier()[0], credential) == "no credential"


def test_malformed_credentials() -> None:
    v, _ = verifier()
    good = sign(KEY, ALICE, now=T0).split(" ")
    assert rejection(v, " ".join(good[:7])) == "malformed credential"                 # 7 fields
    assert rejection(v, " ".join(good + ["x"])) == "malformed credential"             # 9 fields
    assert rejection(v, resign(["v2", *good[1:7]])) == "malformed credential"         # other version
    assert rejection(v, resign([good[0], "alice", *good[2:7]])) == "malformed credential"   # uid not a number


def test_expiry_with_clock_skew() -> None:
    cred_time = T0 - DEFAULT_TTL - CLOCK_SKEW
    v, _ = verifier()
    assert v.verify(sign(KEY, ALICE, now=cred_time)) == ALICE          # expired exactly at the tolerance edge
    assert rejection(v, sign(KEY, ALICE, now=cred_time - 1)) == "credential expired"


def test_short_ttl() -> None:
    v, _ = verifier()
    assert rejection(v, sign(KEY, ALICE, now=T0 - 100, ttl=5)) == "credential expired"
    assert v.verify(sign(KEY, ALICE, now=T0 - 30, ttl=5)) == ALICE    # 25 s past expiry, within skew


def test_future_dated_credentials() -> None:
    v, _ = verifier()
    assert v.verify(sign(KEY, ALICE, now=T0 + CLOCK_SKEW)) == ALICE    # a clock ahead by the tolerance
    assert rejection(v, sign(KEY, ALICE, now=T0 + CLOCK_SKEW + 1)) == "credential expired"


def test_replay_is_refused() -> None:
    v, clock = verifier()
    cred = sign(KEY, ALICE, now=T0)
    v.verify(cred)
    assert rejection(v, cred) == "credential replayed"
    clock.now += 50                      # still valid, past the purge interval: still remembered
    assert rejection(v, cred) == "credential replayed"
    assert Verifier(KEY, clock=clock).verify(cred) == ALICE   # the cache is per verifier


def test_refused_credentials_do_not_burn_their_nonce() -> None:
    v, clock = verifier(now=T0 - 1000)
    cred = sign(KEY, ALICE, now=T0)
    assert rejection(v, cred) == "credential expired"      # future-dated for this clock
    clock.now = T0
    assert v.verify(cred) == ALICE


def test_nonce_cache_is_purged_of_expired_nonces() -> None:
    v, clock = verifier()
    for _ in range(100):
        v.verify(sign(KEY, ALICE, now=clock.now))
    assert len(v._seen) == 100
    clock.now += DEFAULT_TTL + CLOCK_SKEW + 1                # all of them are past their expiry now
    fresh = sign(KEY, ALICE, now=clock.now)
    v.verify(fresh)
    assert list(v._seen) == [fresh.split(" ")[6]]           # memory stays bounded
    assert rejection(v, fresh) == "credential replayed"


def test_bad_host_names_cannot_be_signed() -> None:
    for host in ("", "two words", "tab\there"):
        with pytest.raises(ValueError, match="bad host name"):
            sign(KEY, Identity(1, 1, host), now=T0)


# ---- key files ---------------------------------------------------------------------------------


def test_generate_key_writes_a_private_file_that_loads(tmp_path: Path) -> None:
    path = tmp_path / "etc" / "slurm.key"
    old = os.umask(0)                      # even with a permissive umask
    try:
        generate_key(path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    key = load_key(path)
    assert len(key) == 64 and int(key, 16) >= 0
    v, _ = verifier(key=key)
    assert v.verify(sign(key, ALICE, now=T0)) == ALICE


def test_generate_key_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "slurm.key"
    generate_key(path)
    before = path.read_bytes()
    with pytest.raises(FileExistsError):
        generate_key(path)
    assert path.read_bytes() == before


def test_two_generated_keys_differ(tmp_path: Path) -> None:
    generate_key(tmp_path / "a")
    generate_key(tmp_path / "b")
    assert load_key(tmp_path / "a") != load_key(tmp_path / "b")


def test_load_key_errors(tmp_path: Path) -> None:
    missing = tmp_path / "nokey"
    with pytest.raises(AuthError, match=f"cannot read cluster key {missing}: No such file or directory"):
        load_key(missing)
    short = tmp_path / "short.key"
    short.write_text("abc\n")
    with pytest.raises(AuthError, match=f"cluster key {short} is too short"):
        load_key(short)
    padded = tmp_path / "padded.key"
    padded.write_text("  " + "f" * 40 + "\n\n")
    assert load_key(padded) == b"f" * 40


def test_non_ascii_signature_is_an_auth_error() -> None:
    fields = sign(KEY, ALICE, now=T0).split(" ")
    fields[7] = "é" * 64
    assert rejection(verifier()[0], " ".join(fields)) == "invalid credential signature"
