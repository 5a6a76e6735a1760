"""Framing between clients and the local auth agent (pyslurm_common.agent.protocol): a token
request (pyslurmrestd's) wraps a plain request, and a plain one passes through unchanged."""
from __future__ import annotations

import pytest

from pyslurm_common.agent import protocol


def _payload(frame: bytes) -> bytes:
    assert protocol.frame_length(frame[:protocol.LENGTH_SIZE]) == len(frame) - protocol.LENGTH_SIZE
    return frame[protocol.LENGTH_SIZE:]


def test_plain_request_has_no_token() -> None:
    payload = _payload(protocol.encode_request("/pyslurm.Controller/GetJobs", b"body", 5000))
    assert protocol.split_token(payload) == (None, payload)
    assert protocol.decode_request(payload) == ("/pyslurm.Controller/GetJobs", 5000, b"body")


def test_token_request_round_trip() -> None:
    frame = protocol.encode_token_request("hdr.claims.sig", "bob", "/pyslurm.Accounting/Ping", b"\x00\x01", 30000)
    bearer, rest = protocol.split_token(_payload(frame))
    assert bearer == ("hdr.claims.sig", "bob")
    assert protocol.decode_request(rest) == ("/pyslurm.Accounting/Ping", 30000, b"\x00\x01")


def test_truncated_token_request_is_a_protocol_error() -> None:
    with pytest.raises(protocol.ProtocolError):
        protocol.split_token(b"\xff\xff\x00")
