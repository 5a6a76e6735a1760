"""pyslurmrestd's /openapi/v3 names every path and operation as Slurm 25.11's document does, so
clients generated from Slurm's document (slurmrestapi, Slinky's) find them; its parameters and
request bodies are the ones the handlers read, typed as Slurm's document types them."""
from __future__ import annotations

from pyslurm_restd.app import ENDPOINTS
from pyslurm_restd.envelope import VERSIONS
from pyslurm_restd.openapi_doc import document
from tests import restd_contract


def _document() -> dict:  # type: ignore[type-arg]
    return restd_contract.ours()


def test_paths_and_operation_ids_are_slurms() -> None:
    slurm = restd_contract.document()["paths"]
    ours = _document()["paths"]
    assert len(ours) >= 2 * 25
    for path, operations in ours.items():
        for method, operation in operations.items():
            assert slurm[path][method]["operationId"] == operation["operationId"], (method, path)


def _kind(schema: dict[str, object]) -> str:
    """A property's kind as both documents type it: a scalar type, a list, or Slurm's no_val struct."""
    ref = str(schema.get("$ref", ""))
    if ref.endswith("_no_val_struct") or (schema.get("type") == "object" and "set" in schema.get("properties", {})):  # type: ignore[operator]
        return "no_val"
    if ref.endswith(("_string_array", "_csv_string", "_hostlist_string")) or schema.get("type") == "array":
        return "list"
    return str(schema.get("type"))


def test_job_submit_body_lists_every_field_the_readers_take_typed_as_slurm_types_them() -> None:
    from pyslurm_restd import job_desc, job_desc_extra, request_schemas

    read = job_desc.SUBMIT_FIELDS | set(job_desc_extra.SETTERS) | job_desc_extra.COMPANIONS | {"kill_warning_signal"}
    assert set(request_schemas.JOB_DESC) == read
    slurm = restd_contract.document()["components"]["schemas"]["v0.0.44_job_desc_msg"]["properties"]
    assert {f: (_kind(s), _kind(slurm[f])) for f, s in request_schemas.JOB_DESC.items()
            if _kind(s) != _kind(slurm[f])} == {}
    served = _document()["paths"]["/slurm/v0.0.44/job/submit"]["post"]
    body = served["requestBody"]["content"]["application/json"]["schema"]
    assert body["properties"]["job"]["properties"] == request_schemas.JOB_DESC


def test_query_parameters_are_the_ones_handlers_read() -> None:
    served = _document()["paths"]
    slurm = restd_contract.document()["paths"]
    jobs = {p["name"] for p in served["/slurmdb/v0.0.44/jobs/"]["get"]["parameters"]}
    slurms = {p["name"] for p in slurm["/slurmdb/v0.0.44/jobs/"]["get"]["parameters"]}
    assert jobs - slurms == {"jobs", "job_name_ids"}        # pyslurm's job id filters
    assert {"job_name", "node", "skip_steps", "format", "cluster"} <= jobs
    signal = {p["name"] for p in served["/slurm/v0.0.44/job/{job_id}"]["delete"]["parameters"] if p["in"] == "query"}
    assert signal == {"signal", "flags"} <= {p["name"] for p in slurm["/slurm/v0.0.44/job/{job_id}"]["delete"]["parameters"]}


def test_the_served_document_is_valid_openapi_and_a_full_submission_validates_against_it() -> None:
    import json

    from openapi_core import OpenAPI
    from openapi_core.testing import MockRequest

    spec = OpenAPI.from_dict(_document())
    body = {"script": "#!/bin/bash\ntrue\n", "job": {
        "current_working_directory": "/tmp", "nodes": "2-4", "tasks_per_node": 3, "comment": "c",
        "mail_type": ["END"], "time_minimum": {"set": True, "infinite": False, "number": 5}, "contiguous": True}}

    spec.validate_request(MockRequest("http://localhost", "post", "/slurm/v0.0.44/job/submit",
                                      data=json.dumps(body), content_type="application/json"))


def test_reservation_bodies_are_typed_as_slurm_types_them() -> None:
    from pyslurm_restd import request_schemas

    slurm = restd_contract.document()["components"]["schemas"]["v0.0.44_reservation_desc_msg"]["properties"]
    assert {f: (_kind(s), _kind(slurm[f])) for f, s in request_schemas.RESERVATION_DESC.items()
            if _kind(s) != _kind(slurm[f])} == {}
