"""pyslurm_restd.bad_requests: aiohttp's log of a malformed request becomes one line, no traceback;
any other record passes as it was."""
from __future__ import annotations

import logging

import pytest
from aiohttp.http_exceptions import BadHttpMessage

from pyslurm_restd.bad_requests import OneLineBadRequests


def test_a_malformed_request_is_one_info_line(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("aiohttp.server.test")
    logger.addFilter(OneLineBadRequests())
    with caplog.at_level(logging.DEBUG, logger="aiohttp.server.test"):
        try:
            raise BadHttpMessage("Invalid header value char:\n\n  b'X: \\x00'")
        except BadHttpMessage as exc:
            logger.exception("Error handling request", exc_info=exc)
        try:
            raise RuntimeError("ours")
        except RuntimeError:
            logger.exception("Error handling request")
    bad, ours = caplog.records
    assert (bad.levelname, bad.getMessage(), bad.exc_info) == (
        "INFO", "refused a malformed HTTP request (400): Invalid header value char: b'X: \\x00'", None)
    assert ours.levelname == "ERROR" and ours.exc_info is not None
