"""A malformed HTTP request (a NUL byte in a header, a broken request line) is refused by
aiohttp's parser with a 400 before any handler runs, and aiohttp logs it with a traceback. Bad
input is not a fault of the daemon's: this filter writes it as one line, at INFO."""
from __future__ import annotations

import logging

from aiohttp.http_exceptions import HttpProcessingError


class OneLineBadRequests(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError):
            record.msg, record.args = "refused a malformed HTTP request (%d): %s", (exc.code, " ".join(exc.message.split()))
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def install() -> None:
    logging.getLogger("aiohttp.server").addFilter(OneLineBadRequests())
