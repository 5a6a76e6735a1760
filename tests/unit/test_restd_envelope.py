"""pyslurm_restd.envelope: one encoded outcome answers many requests, each with its own meta, as
plain JSON or as one gzip member whose shared part was compressed once."""
from __future__ import annotations

import gzip
import json

import pytest

from pyslurm_restd.envelope import NO_ERROR, Context, Outcome, RestError, RestWarning, accepts_gzip


def _ctx(source: str) -> Context:
    return Context(version="v0.0.44", plugin="slurmctld", user="alice", group="alice", source=source, cluster="c")


@pytest.mark.parametrize("body", [{"jobs": [{"job_id": i, "name": "a\nb"} for i in range(300)]}, {}])
def test_each_answer_is_the_document_with_its_own_meta(body: dict[str, object]) -> None:
    outcome = Outcome.of(body, [RestError("Failure to query node x", NO_ERROR, "_dump_nodes")],
                         [RestWarning("found nothing", "_dump_jobs")])
    answers = [_ctx(f"[127.0.0.1]:{port}").respond_encoded(outcome, zipped)
               for port, zipped in ((1, False), (2, True), (3, True))]
    plain = json.loads(answers[0].body)
    zipped = [json.loads(gzip.decompress(a.body)) for a in answers[1:]]
    assert {k: v for k, v in plain.items() if k != "meta"} == {
        **body, "errors": [{"description": "Failure to query node x", "error_number": 0, "error": "No error",
                            "source": "_dump_nodes"}],
        "warnings": [{"description": "found nothing", "source": "_dump_jobs"}]}
    assert [z["meta"]["client"]["source"] for z in zipped] == ["[127.0.0.1]:2", "[127.0.0.1]:3"]
    assert all({**z, "meta": None} == {**plain, "meta": None} for z in zipped)
    assert [a.status for a in answers] == [200] * 3           # an entry numbered 0 leaves it 200
    assert answers[1].headers["Content-Encoding"] == "gzip" and "Content-Encoding" not in answers[0].headers


def test_the_first_numbered_error_sets_the_status() -> None:
    outcome = Outcome.of({}, [RestError("x", NO_ERROR, "a"), RestError("Invalid job id specified", 2017, "b")])
    assert _ctx("s").respond_encoded(outcome).status == 404


@pytest.mark.parametrize("header, expected", [("gzip, deflate", True), ("br;q=1.0, gzip;q=0.5", True),
                                              ("gzip;q=0", False), ("identity", False), ("", False),
                                              ("x-gzip", True)])
def test_accepts_gzip(header: str, expected: bool) -> None:
    assert accepts_gzip(header) is expected
