"""pyslurmrestd's /openapi/v3 names every path and operation as Slurm 25.11's document does, so
clients generated from Slurm's document (slurmrestapi, Slinky's) find them."""
from __future__ import annotations

from pyslurm_restd.app import ENDPOINTS
from pyslurm_restd.envelope import VERSIONS
from pyslurm_restd.openapi_doc import document
from tests import restd_contract


def test_paths_and_operation_ids_are_slurms() -> None:
    slurm = restd_contract.document()["paths"]
    ours = document(ENDPOINTS, VERSIONS)["paths"]
    assert len(ours) >= 2 * 25
    for path, operations in ours.items():
        for method, operation in operations.items():
            assert slurm[path][method]["operationId"] == operation["operationId"], (method, path)
