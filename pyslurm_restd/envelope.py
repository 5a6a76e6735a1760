"""The parts every slurmrestd answer shares: ``meta``, ``errors``, ``warnings``, Slurm's
``{set, infinite, number}`` numbers, and Slurm's error numbers and HTTP status codes.

Error numbers and the HTTP status they map to are slurmrestd's (slurm_errno.h, http.c): controller
and accounting refusals are 422 except "Invalid job id specified" (404), a daemon that cannot be
reached is 502, an authentication failure is 511.
"""
from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from typing import Any

from aiohttp import web

RELEASE = ("25", "11", "0")     # the slurmrestd whose OpenAPI document pyslurmrestd serves
VERSIONS = ("v0.0.44", "v0.0.43")
UNKNOWN_URL = ("Unable to find requested URL endpoint. Please query the '/openapi/v3' endpoint or visit "
               "'https://slurm.schedmd.com/rest_api.html' for the OpenAPI specification which includes a list "
               "of all possible slurmrestd endpoints.")
AUTH_DOES_NOT_APPLY = "Authentication does not apply to request"

AUTH_ERROR = 1007
CONNECTION_ERROR = 1001
INVALID_QUERY = 9000
FAIL_PARSING = 9001
INVALID_JOB_DESC = 9002
INVALID_JOB_ID = 2017
UNEXPECTED = 1000

NO_ERROR = 0            # an entry in ``errors`` that leaves the answer 200 (slurmrestd's resp_error(ctxt, 0, ...))

# slurm_strerror() of the numbers slurmrestd's own checks use (slurm_errno.c).
STRERROR = {NO_ERROR: "No error", INVALID_QUERY: "Query empty or not RFC7320 compliant",
            FAIL_PARSING: "Failure during parsing",
            INVALID_JOB_DESC: "Jobs description entry not found, empty or not dictionary or list",
            CONNECTION_ERROR: "Unable to contact slurm controller (connect failure)", UNEXPECTED: "Unexpected error"}


def http_status(errno: int) -> int:
    """slurmrestd's http_status_from_error() (2000-2999: the controller's refusals)."""
    if errno == NO_ERROR:
        return 200
    if errno == INVALID_JOB_ID:
        return 404
    if errno == AUTH_ERROR:
        return 511
    if errno == CONNECTION_ERROR:
        return 502
    if errno in (FAIL_PARSING, INVALID_JOB_DESC):
        return 400
    if errno == INVALID_QUERY or 2000 <= errno < 3000 or 7000 <= errno < 7100:
        return 422
    return 500


@dataclass(frozen=True, slots=True)
class RestError(Exception):
    """One entry of ``errors``; raised by a handler, it ends the request with its HTTP status."""

    description: str
    error_number: int
    source: str
    error: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"description": self.description, "error_number": self.error_number,
                "error": self.error or STRERROR.get(self.error_number, self.description), "source": self.source}


@dataclass(frozen=True, slots=True)
class RestWarning:
    """One entry of ``warnings`` (slurmrestd's resp_warn): the answer stays 200."""

    description: str
    source: str

    def as_json(self) -> dict[str, Any]:
        return {"description": self.description, "source": self.source}


def no_val(number: int | float | None, infinite: bool = False) -> dict[str, Any]:
    """Slurm's ``*_no_val_struct``: None is "not set"."""
    return {"set": number is not None or infinite, "infinite": infinite, "number": 0 if number is None else number}


@dataclass(frozen=True, slots=True)
class Context:
    """Who asked, through which version and plugin: what ``meta`` says."""

    version: str
    plugin: str              # slurmctld or slurmdbd
    user: str
    group: str
    source: str
    cluster: str
    accounting_host: str = ""

    def meta(self) -> dict[str, Any]:
        major, minor, micro = RELEASE
        return {
            "plugin": {"type": f"openapi/{self.plugin}", "name": f"Slurm OpenAPI {self.plugin}",
                       "data_parser": f"data_parser/{self.version}",
                       "accounting_storage": "accounting_storage/slurmdbd"},
            "client": {"source": self.source, "user": self.user, "group": self.group},
            "command": [],
            "slurm": {"version": {"major": major, "micro": micro, "minor": minor},
                      "release": ".".join(RELEASE), "cluster": self.cluster},
        }

    def respond(self, body: dict[str, Any], errors: tuple[RestError, ...] | list[RestError] = (),
                warnings: tuple[RestWarning, ...] | list[RestWarning] = (), gzip: bool = False) -> web.Response:
        return self.respond_encoded(Outcome.of(body, errors, warnings), gzip)

    def respond_encoded(self, outcome: "Outcome", gzip: bool = False) -> web.Response:
        """The answer: the outcome's encoded body, then this request's meta, errors and warnings;
        gzip-compressed when the client takes it (`gzip`), the shared part compressed once.
        JSON is written compact by the C encoder: pretty printing (slurmrestd's) takes Python's
        pure encoder, four times slower on a 1,000-job list, and no client reads the spaces."""
        rest = json.dumps({"meta": self.meta(), "errors": [e.as_json() for e in outcome.errors],
                           "warnings": [w.as_json() for w in outcome.warnings]})[1:].encode()
        # The first error that carries a number decides, as ctxt->rc does (resp_error sets it once).
        code = next((http_status(e.error_number) for e in outcome.errors if e.error_number), 200)
        headers = {"Content-Type": "application/json", "Vary": "Accept-Encoding"}
        if gzip:
            head, compressor = outcome.gzip_head()
            body = head + compressor.compress(rest) + compressor.flush()
            headers["Content-Encoding"] = "gzip"
        else:
            body = outcome.head + rest
        return web.Response(status=code, body=body, headers=headers)


class Outcome:
    """What a handler produced, its body already encoded: concurrent identical reads share one.
    `head` is the document up to this request's own part (meta, errors, warnings)."""

    __slots__ = ("head", "errors", "warnings", "_gzip")

    def __init__(self, body: str, errors: tuple[RestError, ...] = (), warnings: tuple[RestWarning, ...] = ()) -> None:
        self.head = b"{" if body == "{}" else body[:-1].encode() + b", "
        self.errors, self.warnings = errors, warnings
        self._gzip: tuple[bytes, Any] | None = None

    @classmethod
    def of(cls, body: dict[str, Any], errors: tuple[RestError, ...] | list[RestError] = (),
           warnings: tuple[RestWarning, ...] | list[RestWarning] = ()) -> "Outcome":
        return cls(json.dumps(body), tuple(errors), tuple(warnings))

    def gzip_head(self) -> tuple[bytes, Any]:
        """The head compressed once (a 5 MB job list in about 35 ms, to about 1 %), and a copy of
        the compressor after it: each answer compresses only its own part onto that copy, so the
        whole is one gzip member (its CRC and length run on in the copy)."""
        if self._gzip is None:
            compressor = zlib.compressobj(6, zlib.DEFLATED, 31)      # 31: a gzip header and trailer
            self._gzip = (compressor.compress(self.head) + compressor.flush(zlib.Z_SYNC_FLUSH), compressor)
        head, compressor = self._gzip
        return head, compressor.copy()


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an Accept-Encoding header takes gzip (a q of 0 refuses it)."""
    for item in accept_encoding.lower().split(","):
        name, _, params = item.strip().partition(";")
        if name.strip() in ("gzip", "x-gzip"):
            q = params.strip().removeprefix("q=")
            return not params.strip().startswith("q=") or _weight(q) > 0
    return False


def _weight(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


def text_response(status: int, text: str) -> web.Response:
    return web.Response(status=status, text=text, content_type="text/plain")
