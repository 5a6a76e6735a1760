"""Per-RPC credentials (pyslurm_common/auth.py): signing, binding to audience, method and body,
verification, replay cache, server proofs, key files."""
from __future__ import annotations

import hashlib
import hmac
import os
import stat
from pathlib import Path

import pytest

from pyslurm_common.auth import (CLOCK_SKEW, DEFAULT_TTL, OTHER_INSTANCE, AuthError, Claim, Identity, Verifier,
                                 audience, body_digest, generate_key, hello_statement, load_key, proof_holds, prove,
                                 purpose_key, reply_statement)
from pyslurm_common.auth import sign as sign_for

KEY = b"k" * 64
ALICE = Identity(uid=1000, gid=100, host="login1")
T0 = 1_700_000_000.0
CTLD = audience("slurmctld", 6817, "a1" * 16)
METHOD = "/pyslurm.Controller/SignalJobs"
BODY = b"\x08\x07"


class FakeClock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def sign(key: bytes, identity: Identity, now: float, ttl: int = DEFAULT_TTL) -> str:
    """A credential for METHOD with BODY at the controller instance CTLD."""
    return sign_for(key, identity, CTLD, METHOD, BODY, now=now, ttl=ttl)


def verifier(now: float = T0, key: bytes = KEY) -> tuple[_Checked, FakeClock]:
    clock = FakeClock(now)
    return _Checked(Verifier(key, CTLD, clock=clock)), clock


class _Checked:
    """Verifier.verify for METHOD, returning the identity when the body digest is BODY's."""

    def __init__(self, v: Verifier) -> None:
        self._v = v

    def verify(self, credential: str | None, method: str = METHOD) -> Identity:
        claim = self._v.verify(credential, method)
        assert claim.body_digest == body_digest(BODY)
        self._v.consume(claim)
        return claim.identity

    @property
    def _seen(self) -> dict[str, int]:
        return self._v._seen


def resign(fields: list[str], key: bytes = KEY) -> str:
    """A credential with the given payload fields and a valid signature (to test the parser)."""
    payload = " ".join(fields)
    return f"{payload} {hmac.new(purpose_key(key, 'credential'), payload.encode(), hashlib.sha256).hexdigest()}"


def rejection(v: Verifier | _Checked, credential: str | None, method: str = METHOD) -> str:
    with pytest.raises(AuthError) as info:
        v.verify(credential, method)
    return str(info.value)


# ---- sign / verify ---------------------------------------------------------------------------


def test_round_trip() -> None:
    v, _ = verifier()
    cred = sign(KEY, ALICE, now=T0)
    assert v._v.verify(cred, METHOD) == Claim(ALICE, body_digest(BODY), cred.split(" ")[6], int(T0) + DEFAULT_TTL)
    assert not ALICE.is_root and Identity(0, 0, "head").is_root


def test_credential_layout() -> None:
    fields = sign(KEY, ALICE, now=T0, ttl=90).split(" ")
    assert fields[:6] == ["v2", "1000", "100", "login1", str(int(T0)), str(int(T0) + 90)]
    assert len(fields[6]) == 24 and int(fields[6], 16) >= 0          # nonce: 12 random bytes, hex
    assert fields[7:10] == [CTLD, METHOD, hashlib.sha256(BODY).hexdigest()]
    assert len(fields[10]) == 64                                      # hmac-sha256 hex


def test_every_credential_has_a_fresh_nonce() -> None:
    assert len({sign(KEY, ALICE, now=T0).split(" ")[6] for _ in range(50)}) == 50


def test_wrong_key_is_refused() -> None:
    v, _ = verifier(key=b"x" * 64)
    assert rejection(v, sign(KEY, ALICE, now=T0)) == "invalid credential signature"


@pytest.mark.parametrize(("index", "value"), [(1, "0"), (2, "0"), (3, "head"), (4, str(int(T0) + 1)),
                                              (5, str(int(T0) + 99999)), (6, "0" * 24),
                                              (7, audience("slurmctld", 6817, "b2" * 16)),
                                              (8, "/pyslurm.Controller/GetJobs"), (9, "0" * 64)],
                         ids=["uid", "gid", "host", "issued", "expires", "nonce", "audience", "method", "body"])
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
    assert rejection(v, " ".join(good + ["x"])) == "malformed credential"             # 12 fields
    assert rejection(v, resign(["v1", *good[1:10]])) == "malformed credential"        # other version
    assert rejection(v, resign([good[0], "alice", *good[2:10]])) == "malformed credential"   # uid not a number


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
    assert _Checked(Verifier(KEY, CTLD, clock=clock)).verify(cred) == ALICE   # the cache is per verifier


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
    with pytest.raises(ValueError, match="bad audience"):
        sign_for(KEY, ALICE, "", METHOD, BODY)
    with pytest.raises(ValueError, match="bad method"):
        sign_for(KEY, ALICE, CTLD, "two words", BODY)


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
    fields[10] = "é" * 64
    assert rejection(verifier()[0], " ".join(fields)) == "invalid credential signature"


# ---- binding: a captured credential is useless for anything else ------------------------------


def test_a_credential_for_another_daemon_instance_is_refused_as_such() -> None:
    restarted = _Checked(Verifier(KEY, audience("slurmctld", 6817, "c3" * 16), clock=FakeClock()))
    assert rejection(restarted, sign(KEY, ALICE, now=T0)) == OTHER_INSTANCE
    node_agent = _Checked(Verifier(KEY, audience("slurmd", 6818, "a1" * 16), clock=FakeClock()))
    assert rejection(node_agent, sign(KEY, ALICE, now=T0)) == OTHER_INSTANCE


def test_a_credential_for_another_method_is_refused() -> None:
    v, _ = verifier()
    assert rejection(v, sign(KEY, ALICE, now=T0), "/pyslurm.Controller/SubmitBatchJob") == \
        "credential for another method"


def test_the_credential_carries_the_digest_of_exactly_its_body() -> None:
    v, _ = verifier()
    claim = v._v.verify(sign_for(KEY, ALICE, CTLD, METHOD, b"other body", now=T0), METHOD)
    assert claim.body_digest != body_digest(BODY) and claim.body_digest == body_digest(b"other body")


def test_credentials_and_proofs_use_separate_keys() -> None:
    """No signature of one kind can pass for another: each use derives its own key."""
    assert len({purpose_key(KEY, p) for p in ("credential", "server proof", "job credential")}) == 3
    cred = sign(KEY, ALICE, now=T0)
    payload, mac = cred.rsplit(" ", 1)
    assert mac != hmac.new(KEY, payload.encode(), hashlib.sha256).hexdigest()


# ---- server proofs --------------------------------------------------------------------------------


def test_a_proof_holds_only_for_its_challenge_audience_and_key() -> None:
    challenge = hello_statement(os.urandom(32))
    proof = prove(KEY, CTLD, challenge)
    assert proof_holds(KEY, CTLD, challenge, proof)
    assert not proof_holds(KEY, CTLD, hello_statement(os.urandom(32)), proof)         # a replayed answer
    assert not proof_holds(KEY, audience("slurmdbd", 6819, "a1" * 16), challenge, proof)
    assert not proof_holds(KEY, CTLD, challenge, prove(b"x" * 64, CTLD, challenge))   # no key, no proof
    assert not proof_holds(KEY, CTLD, challenge, "é" * 64)


def test_a_reply_proof_names_the_request_and_the_reply() -> None:
    proof = prove(KEY, CTLD, reply_statement("ab" * 12, b"reply"))
    assert proof_holds(KEY, CTLD, reply_statement("ab" * 12, b"reply"), proof)
    assert not proof_holds(KEY, CTLD, reply_statement("ab" * 12, b"forged reply"), proof)
    assert not proof_holds(KEY, CTLD, reply_statement("cd" * 12, b"reply"), proof)
    assert not proof_holds(KEY, CTLD, hello_statement(b"reply"), proof)
