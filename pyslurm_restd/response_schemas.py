"""The schemas of the answers, for /openapi/v3: each endpoint's handler is run once, against
sample controller and accounting replies (one record of each kind, every optional part filled),
and the JSON it builds, in the envelope every answer has, is typed as it stands. The document
thus describes the answers the same code writes; tests/integration checks every real answer
against it, as against Slurm's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message

from pyslurm_common.rpc import ctld_pb2, dbd_pb2, types_pb2

from .endpoints import Call, Endpoint
from .envelope import Context, RestError, RestWarning
from .upstream import Caller

_JOB = types_pb2.JobInfo(job_id=2, name="sample", user_name="u", partition="p", state="RUNNING", num_nodes=1,
                         num_cpus=1, nodes="n1", node_names=["n1"], cpus_per_node=[1], start_time=1, submit_time=1,
                         array_job_id=2, array_task_str="0", steps=[types_pb2.StepInfo(step_id="batch", state="RUNNING")])
_STEP = types_pb2.StepInfo(step_id="0", name="s", state="COMPLETED", nodes="n1", start_time=1, end_time=2)
_NODE = ctld_pb2.NodeInfo(name="n1", state="IDLE", flags=["DRAIN"], cpus=1, partitions=["p"], gres="gpu:1",
                          cpu_load=0.5)
_SAMPLES: dict[str, Message] = {
    "GetJobs": ctld_pb2.JobList(jobs=[_JOB], now=1),
    "GetNodes": ctld_pb2.NodeList(nodes=[_NODE]),
    "GetPartitions": ctld_pb2.PartitionList(partitions=[ctld_pb2.PartitionInfo(name="p", nodes=["n1"], state="UP")]),
    "GetReservations": ctld_pb2.ReservationList(reservations=[ctld_pb2.ReservationInfo(name="r")]),
    "GetLicenses": ctld_pb2.LicenseList(licenses=[ctld_pb2.LicenseInfo(name="l", total=1)]),
    "GetShares": ctld_pb2.SharesReply(shares=[ctld_pb2.ShareInfo(account="a", fairshare=0.5)]),
    "SubmitBatchJob": ctld_pb2.SubmitReply(job_id=1),
    "SignalJobs": ctld_pb2.SignalReply(results=[ctld_pb2.SignalResult(job_id=1)]),
    "UpdateJobs": ctld_pb2.JobUpdateReply(results=[ctld_pb2.SignalResult(job_id=1)]),
    "QueryJobs": dbd_pb2.JobRecordBatch(records=[dbd_pb2.JobRecord(cluster="c", job=_JOB, steps=[_STEP])]),
    "ShowAssociations": dbd_pb2.AssociationEntities(
        accounts=[dbd_pb2.AccountRecord(name="a", coordinators=["u"])],
        users=[dbd_pb2.UserRecord(name="u", coord_accounts=["a"])],
        associations=[dbd_pb2.AssociationRecord(key=dbd_pb2.AssociationKey(account="a", user="u"))],
        qos=[dbd_pb2.QosRecord(name="normal", flags=["DENY_LIMIT"], preempt=["low"])],
        tres=[dbd_pb2.TresRecord(type="cpu", id=1)],
        clusters=[dbd_pb2.ClusterRecord(name="c")]),
    "GetStats": dbd_pb2.AccountingStats(rollups=[dbd_pb2.RollupCount(interval="hour", count=1)],
                                        rpcs=[dbd_pb2.CallCount(name="x", count=1)],
                                        users=[dbd_pb2.CallCount(name="u", count=1)]),
}
# Bodies that reach each writing handler's answer.
_BODIES: dict[str, dict[str, Any]] = {
    "post_job_submit": {"script": "#!/bin/sh\n", "job": {"current_working_directory": "/"}},
    "post_job_allocate": {"job": {"current_working_directory": "/"}},
    "post_job": {"comment": "c"}, "post_node": {"comment": "c"}, "post_nodes": {"name": ["n1"], "comment": "c"},
    "delete_jobs": {"jobs": [1]},
}


class _SampleUpstream:
    async def call(self, caller: Caller, method: str, request: Message, reply_type: type[Message]) -> Message:
        sample = _SAMPLES.get(method.rsplit("/", 1)[1])
        return sample if isinstance(sample, reply_type) else reply_type()


@dataclass(slots=True)
class _SampleCall(Call):
    sample_body: dict[str, Any] = field(default_factory=dict)

    async def json_body(self) -> dict[str, Any]:
        return self.sample_body


def _typed(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer", "format": "int64"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if isinstance(value, list):
        return {"type": "array", "items": _typed(value[0]) if value else {}}
    if isinstance(value, dict):
        return {"type": "object", "properties": {k: _typed(v) for k, v in value.items()}}
    return {}


async def _answer(endpoint: Endpoint, version: str) -> dict[str, Any]:
    from aiohttp.test_utils import make_mocked_request   # only when the document is first asked for

    params = {name: "1" if name == "job_id" else "n1" if name == "node_name" else "x"
              for name in _path_params(endpoint.path)}
    request = make_mocked_request(endpoint.method, "/", match_info=params)
    ctx = Context(version=version, plugin=endpoint.plugin, user="u", group="g", source="s", cluster="c")
    call = _SampleCall(request=request, ctx=ctx, caller=Caller("u"), upstream=_SampleUpstream(),  # type: ignore[arg-type]
                       controllers=("h",), declared=endpoint.query,
                       sample_body=_BODIES.get(endpoint.operation, {}))
    try:
        body = await endpoint.handler(call)
    except RestError:
        body = endpoint.empty
    return {**body, "meta": ctx.meta(), "errors": [RestError("d", 1, "s").as_json()],
            "warnings": [RestWarning("d", "s").as_json()]}


def _path_params(path: str) -> list[str]:
    return [part[1:-1] for part in path.split("/") if part.startswith("{")]


async def schemas(endpoints: tuple[Endpoint, ...], versions: tuple[str, ...]
                  ) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    """(version, plugin, method, path) -> the schema of that endpoint's answer."""
    return {(v, e.plugin, e.method, e.path): _typed(await _answer(e, v)) for v in versions for e in endpoints}
