"""``/slurm/v0.0.4x/``: the controller's endpoints (slurmrestd's openapi/slurmctld)."""
from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from pyslurm_common.agent import protocol
from pyslurm_common.errors import ERRNO
from pyslurm_common.gres import gpu_count
from pyslurm_common.rpc import ctld_pb2, types_pb2

from . import job_desc, reservation_desc
from . import request_schemas as schemas
from .signal_names import signal_number
from .endpoints import Call, Endpoint
from .upstream import UpstreamError
from .envelope import INVALID_JOB_ID, INVALID_QUERY, NO_ERROR, RestError, RestWarning, no_val
from .job_fields import job_record
from .resource_fields import node_record, partition_record, reservation_record, share_record, statistics

_JOBS_EMPTY = {"jobs": [], "last_backfill": no_val(0), "last_update": no_val(0)}
_NODES_EMPTY = {"nodes": [], "last_update": no_val(0)}
_PARTS_EMPTY = {"partitions": [], "last_update": no_val(0)}


def _job_id(text: str) -> tuple[int, str | None]:
    """``123`` or ``123_7`` (an array task): the id to ask for and the task index."""
    base, _, task = text.partition("_")
    if not base.isdigit() or (task and not task.isdigit()) or len(base) > 10 or int(base) > 2**32 - 1:
        raise RestError("Invalid job id specified", INVALID_JOB_ID, "_handle_job_get()",
                        "Invalid job id specified")
    return int(base), task or None


def _signal_number(text: str) -> int:
    return signal_number(text, lambda why: RestError(why, 9000, "_op_handler_job()"))


async def ping(call: Call) -> dict[str, Any]:
    """Each SlurmctldHost in order, as `scontrol ping` asks them."""
    pings = []
    for index, host in enumerate(call.controllers):
        started = time.monotonic()
        try:
            await call.upstream.call(call.caller, protocol.to_controller(index, "Ping"), types_pb2.Empty(),
                                     ctld_pb2.PingReply)
            responding = True
        except UpstreamError:
            responding = False
        pings.append({"hostname": host, "pinged": "UP" if responding else "DOWN", "responding": responding,
                      "latency": int((time.monotonic() - started) * 1e6),
                      "mode": "primary" if index == 0 else "backup", "primary": index == 0})
    return {"pings": pings}


async def diag(call: Call) -> dict[str, Any]:
    reply = await call.controller("GetDiag", types_pb2.Empty(), ctld_pb2.DiagReply, "slurm_get_statistics()",
                                  "slurm_get_statistics() failed to get slurmctld statistics")
    return {"statistics": statistics(reply)}


async def _node_layouts(call: Call, jobs: Iterable[types_pb2.JobInfo]) -> dict[str, ctld_pb2.NodeInfo]:
    """The nodes' sockets and cores, for job_resources; asked only when a job holds nodes."""
    if not any(j.node_names for j in jobs):
        return {}
    return {n.name: n for n in await _nodes(call)}


async def get_jobs(call: Call) -> dict[str, Any]:
    """jobs/ (every job), jobs/state/?job_id=1,2 (the jobs named)."""
    ids = [_job_id(text)[0] for text in call.query("job_id").split(",") if text]
    reply = await call.controller("GetJobs", ctld_pb2.JobQuery(job_ids=ids), ctld_pb2.JobList, "slurm_load_jobs()",
                                  "Unable to query jobs")
    nodes = await _node_layouts(call, reply.jobs)
    return {"jobs": [job_record(j, call.ctx.cluster, call.version, nodes) for j in reply.jobs],
            "last_backfill": no_val(reply.now),
            "last_update": no_val(reply.now)}


async def get_job(call: Call) -> dict[str, Any]:
    job_id, task = _job_id(call.param("job_id"))
    reply = await call.controller("GetJobs", ctld_pb2.JobQuery(job_ids=[job_id]), ctld_pb2.JobList,
                                  "_handle_job_get()", f"Unable to query JobId={call.param('job_id')}")
    jobs = [j for j in reply.jobs if task is None or (j.array_task_str == task and not j.array_remainder)]
    if task is None:
        jobs = [j for j in jobs if j.job_id == job_id or j.array_job_id == job_id]
    if not jobs:
        raise RestError(f"Unable to query JobId={call.param('job_id')}", INVALID_JOB_ID, "_handle_job_get()",
                        "Invalid job id specified")
    nodes = await _node_layouts(call, jobs)
    return {"jobs": [job_record(j, call.ctx.cluster, call.version, nodes) for j in jobs],
            "last_backfill": no_val(reply.now),
            "last_update": no_val(reply.now)}


# Kill flags pyslurm acts on (scancel --batch, --full); others, and the bulk request's filters
# (account, partition, user ...), are refused by name rather than ignored: ignoring a filter
# would signal more jobs than asked.
KILL_FLAGS = frozenset({"BATCH_JOB", "FULL_JOB"})
_BULK_FIELDS = frozenset(schemas.JOBS_SIGNAL)


def _kill_flags(flags: list[str]) -> list[str]:
    unknown = sorted(set(flags) - KILL_FLAGS)
    if unknown:
        raise RestError(f"Kill flags not supported by pyslurm: {', '.join(unknown)}", 9000, "_op_handler_jobs()")
    return flags


async def _signal(call: Call, job_ids: list[int], signal_number: int, flags: list[str]) -> list[ctld_pb2.SignalResult]:
    request = ctld_pb2.SignalRequest(job_ids=job_ids, signal=signal_number, batch_only="BATCH_JOB" in flags,
                                     full="FULL_JOB" in flags)
    reply = await call.controller("SignalJobs", request, ctld_pb2.SignalReply, "slurm_kill_job()",
                                  "Signal request failed")
    return list(reply.results)


async def delete_job(call: Call) -> dict[str, Any]:
    job_id, _ = _job_id(call.param("job_id"))
    flags = _kill_flags([f for f in call.query("flags").upper().split(",") if f])
    signal_text = call.query("signal")
    # No signal: cancel, as scancel does (SIGTERM, KillWait, SIGKILL); a named signal is only sent.
    number = _signal_number(signal_text) if signal_text else 0
    results = await _signal(call, [job_id], number, flags)
    failed = next((r for r in results if r.error), None)
    if failed is not None:
        raise RestError(f"Signal request failed for JobId={job_id}", ERRNO.get(failed.error, 1000),
                        "slurm_kill_job()", failed.error)
    return {"status": []}


async def delete_jobs(call: Call) -> dict[str, Any]:
    body = await call.json_body()
    unknown = sorted(set(body) - _BULK_FIELDS)
    if unknown:
        raise RestError(f"Filters not supported by pyslurm: {', '.join(unknown)} (name the jobs)", 9000,
                        "_op_handler_jobs()")
    ids = body.get("jobs", [])
    if not isinstance(ids, list) or not ids or len(ids) > 100000:
        raise RestError("No jobs given", 9000, "_op_handler_jobs()")
    job_ids = [_job_id(str(i))[0] for i in ids]
    signal_text = body.get("signal", "")
    number = _signal_number(signal_text) if isinstance(signal_text, str) and signal_text else 0
    flags = body.get("flags", [])
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise RestError("flags: expected a list of names", 9000, "_op_handler_jobs()")
    flags = _kill_flags(flags)
    results = await _signal(call, job_ids, number, flags)
    return {"status": [{"error": {"string": r.error, "code": ERRNO.get(r.error, 0) if r.error else 0,
                                  "message": r.error}, "step_id": "entire", "job_id": no_val(r.job_id),
                        "federation": {"sibling": ""}} for r in results]}


async def update_job(call: Call) -> dict[str, Any]:
    job_id, _ = _job_id(call.param("job_id"))
    settings, hold = job_desc.update(await call.json_body())
    results: list[dict[str, Any]] = []
    actions = ([("hold" if hold else "release", [])] if hold is not None else []) + (
        [("update", settings)] if settings else [])
    for action, values in actions:
        reply = await call.controller("UpdateJobs", ctld_pb2.JobUpdateRequest(job_ids=[job_id], action=action,
                                                                              settings=values),
                                      ctld_pb2.JobUpdateReply, "slurm_update_job2()", "Job update requested failed")
        for result in reply.results:
            if result.error:
                raise RestError(f"Job update requested failed for JobId={job_id}",
                                ERRNO.get(result.error, 1000), "slurm_update_job2()", result.error)
            results.append({"job_id": result.job_id, "step_id": "", "error": "", "error_code": 0,
                            "why": "Job update requested"})
    if not results:
        raise RestError("No changes requested", 9000, "slurm_update_job2()")
    return {"results": results[-1:]}


async def submit_job(call: Call) -> dict[str, Any]:
    desc = job_desc.submission(await call.json_body())
    reply = await call.controller("SubmitBatchJob", ctld_pb2.SubmitRequest(job=desc), ctld_pb2.SubmitReply,
                                  "slurm_submit_batch_job()", "Batch job submission failed")
    return {"job_id": reply.job_id, "step_id": "batch", "job_submit_user_msg": ""}


async def allocate_job(call: Call) -> dict[str, Any]:
    desc = job_desc.allocation(await call.json_body())
    reply = await call.controller("SubmitBatchJob", ctld_pb2.SubmitRequest(job=desc), ctld_pb2.SubmitReply,
                                  "slurm_allocate_resources()", "Job allocation request failed")
    return {"job_id": reply.job_id, "job_submit_user_msg": ""}


async def _nodes(call: Call) -> list[ctld_pb2.NodeInfo]:
    reply = await call.controller("GetNodes", types_pb2.Empty(), ctld_pb2.NodeList, "slurm_load_node()",
                                  "slurm_load_node() failed")
    return list(reply.nodes)


async def get_nodes(call: Call) -> dict[str, Any]:
    return {"nodes": [node_record(n, call.ctx.cluster) for n in await _nodes(call)], "last_update": no_val(int(time.time()))}


async def get_node(call: Call) -> dict[str, Any]:
    """An unknown node is not a failure to slurmrestd: 200, no nodes, an entry numbered 0 (No error)."""
    name = call.param("node_name")
    nodes = [n for n in await _nodes(call) if n.name == name]
    if not nodes:
        call.errors.append(RestError(f"Failure to query node {name}", NO_ERROR, "_dump_nodes"))
        return {}
    return {"nodes": [node_record(n, call.ctx.cluster) for n in nodes], "last_update": no_val(int(time.time()))}


# update_node_msg fields pyslurm acts on; the others (features, gres, weight, topology_str ...)
# are refused by name rather than ignored.
NODE_FIELDS = frozenset(schemas.NODE_UPDATE) - {"name"}


def _node_text(body: dict[str, Any], field: str) -> str | None:
    value = body.get(field)
    if value is not None and (not isinstance(value, str) or len(value) > 1024 * 1024):
        raise RestError(f"Invalid {field}", 9000, "_op_handler_node()")
    return value


async def _update_nodes(call: Call, names: list[str], body: dict[str, Any], source: str) -> None:
    unknown = sorted(set(body) - NODE_FIELDS - {"name"})
    if unknown:
        raise RestError(f"Node fields not supported by pyslurm: {', '.join(unknown)}", 9000, source)
    states = body.get("state", [])
    states = [states] if isinstance(states, str) else states
    if not isinstance(states, list) or len(states) > 1 or not all(isinstance(s, str) for s in states):
        raise RestError("Give one state: DRAIN, RESUME, DOWN, UNDRAIN or IDLE", 9000, source)
    request = ctld_pb2.NodeUpdateRequest(names=names, state=states[0].upper() if states else "",
                                         reason=_node_text(body, "reason") or "")
    for field in ("comment", "extra"):
        value = _node_text(body, field)
        if value is not None:
            setattr(request, field, value)
    await call.controller("UpdateNodes", request, types_pb2.Empty, "slurm_update_node()",
                          f"Failure to update node {','.join(names)}")


async def update_node(call: Call) -> dict[str, Any]:
    body = await call.json_body()
    if "name" in body:      # slurmrestd warns and ignores a name in the body of node/{name}
        call.warnings.append(RestWarning(f"node_names field {body['name']} ignored for singular node update",
                                         "_update_node"))
    await _update_nodes(call, [call.param("node_name")], body, "_update_node")
    return {}


async def update_nodes(call: Call) -> dict[str, Any]:
    """POST nodes/: the nodes the body's `name` (a hostlist) names, all with one update."""
    body = await call.json_body()
    names = body.get("name", [])
    names = [names] if isinstance(names, str) else names
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
        raise RestError("No node names given (name)", 9000, "_update_nodes")
    await _update_nodes(call, names, body, "_update_nodes")
    return {}


async def delete_node(call: Call) -> dict[str, Any]:
    await call.controller("DeleteNodes", ctld_pb2.NodeDeleteRequest(names=[call.param("node_name")]),
                          types_pb2.Empty, "slurm_delete_node()", "Failure to delete node")
    return {}


async def _partitions(call: Call, name: str | None) -> dict[str, Any]:
    parts = (await call.controller("GetPartitions", ctld_pb2.PartitionQuery(), ctld_pb2.PartitionList,
                                   "slurm_load_partitions()", "Unable to query partitions")).partitions
    nodes = {n.name: n for n in await _nodes(call)}
    selected = [p for p in parts if name is None or p.name == name]
    if name is not None and not selected:
        raise RestError(f"Unable to find partition {name}", 2000, "_op_handler_partition()",
                        "Invalid partition name specified")
    return {"partitions": [partition_record(p, call.ctx.cluster, sum(gpu_count(nodes[n].gres) for n in p.nodes
                                                                     if n in nodes)) for p in selected],
            "last_update": no_val(int(time.time()))}


async def get_partitions(call: Call) -> dict[str, Any]:
    return await _partitions(call, None)


async def get_partition(call: Call) -> dict[str, Any]:
    return await _partitions(call, call.param("partition_name"))


async def get_shares(call: Call) -> dict[str, Any]:
    query = ctld_pb2.SharesQuery(accounts=[a for a in call.query("accounts").split(",") if a],
                                 users=[u for u in call.query("users").split(",") if u])
    reply = await call.controller("GetShares", query, ctld_pb2.SharesReply, "slurm_associations_get_shares()",
                                  "Unable to query shares")
    rows = [share_record(i, r, call.ctx.cluster) for i, r in enumerate(reply.shares)]
    return {"shares": {"shares": rows, "total_shares": sum(r["shares"]["number"] for r in rows if not r["parent"])}}


async def reconfigure(call: Call) -> dict[str, Any]:
    await call.controller("Reconfigure", types_pb2.Empty(), types_pb2.Empty, "slurm_reconfigure()",
                          "slurm_reconfigure() failed")
    return {}


async def get_licenses(call: Call) -> dict[str, Any]:
    """slurm.conf's Licenses= with what the jobs holding allocations use (scontrol show lic)."""
    reply = await call.controller("GetLicenses", types_pb2.Empty(), ctld_pb2.LicenseList, "slurm_load_licenses()",
                                  "Unable to query licenses")
    return {"licenses": [{"LicenseName": lic.name, "Total": lic.total, "Used": lic.used,
                          "Free": lic.total - lic.used - lic.reserved, "Remote": False, "Reserved": lic.reserved,
                          "LastConsumed": 0, "LastDeficit": 0, "LastUpdate": 0, "Nodes": ""}
                         for lic in sorted(reply.licenses, key=lambda lic: lic.name)],
            "last_update": no_val(int(time.time()))}


async def _reservations(call: Call, name: str | None) -> dict[str, Any]:
    found = (await call.controller("GetReservations", types_pb2.Empty(), ctld_pb2.ReservationList,
                                   "slurm_load_reservations()", "Unable to query reservations")).reservations
    if name is not None and not found:
        # slurmrestd's _get_single_reservation: no reservation at all is "nothing loaded", number 0, 200
        call.errors.append(RestError("Unable to query reservations", NO_ERROR, "slurm_load_reservations()"))
        return {}
    # and one name among others that matches none (names compared ignoring case) a refused query
    selected = [r for r in found if name is None or r.name.lower() == name.lower()][:1 if name else None]
    if name is not None and not selected:
        raise RestError(f"Unable to find reservation {name}", INVALID_QUERY, "_get_single_reservation")
    return {"reservations": [reservation_record(r) for r in selected], "last_update": no_val(int(time.time()))}


async def _save_reservations(call: Call, descs: list[Any], source: str) -> dict[str, Any]:
    """Each description: an update of the reservation of its name (names compared ignoring
    case) or a new one, every one checked before any is saved, as slurmrestd's."""
    found = (await call.controller("GetReservations", types_pb2.Empty(), ctld_pb2.ReservationList,
                                   "slurm_load_reservations()", "Unable to query reservations")).reservations
    existing = {r.name.lower(): r.name for r in found}
    prepared = []
    for desc in descs:
        if not isinstance(desc, dict):
            raise RestError("Rejecting request. Failure parsing parameters", INVALID_QUERY, source)
        name, settings = reservation_desc.words(desc, source)
        known = existing.get(name.lower())
        reservation_desc.checked(known or name, settings, known is not None, source)
        prepared.append((known or name, settings, known is not None))
    for name, settings, known in prepared:
        # as scontrol sends them: an update names its reservation, a creation carries the name in its words
        edit = (ctld_pb2.ReservationEdit(action="update", name=name, settings=settings) if known else
                ctld_pb2.ReservationEdit(action="create", settings=[f"ReservationName={name}", *settings]))
        await call.controller("EditReservation", edit, ctld_pb2.ReservationEditReply, f"slurm_{edit.action}_reservation",
                              # slurmrestd's wordings, its two spaces after "creating reservation" too
                              f"Error updating reservation {name}" if known else f"Error creating reservation  {name}")
    return {"reservations": descs}


async def post_reservation(call: Call) -> dict[str, Any]:
    return await _save_reservations(call, [await call.json_body()], "_mod_reservation")


async def post_reservations(call: Call) -> dict[str, Any]:
    descs = (await call.json_body()).get("reservations")
    if not isinstance(descs, list) or not descs:
        raise RestError("No reservation descriptions specified in reservations array", INVALID_QUERY,
                        "_parse_resv_desc_list")
    return await _save_reservations(call, descs, "_mod_reservations")


async def delete_reservation(call: Call) -> dict[str, Any]:
    name = call.param("reservation_name")
    await call.controller("EditReservation", ctld_pb2.ReservationEdit(action="delete", name=name),
                          ctld_pb2.ReservationEditReply, "slurm_delete_reservation", f"Error deleting reservation {name}")
    return {}


async def get_reservations(call: Call) -> dict[str, Any]:
    return await _reservations(call, None)


async def get_reservation(call: Call) -> dict[str, Any]:
    return await _reservations(call, call.param("reservation_name"))


ENDPOINTS = (
    Endpoint("slurmctld", "GET", "ping/", "get_ping", ping, {"pings": []}),
    Endpoint("slurmctld", "GET", "diag/", "get_diag", diag, {"statistics": {}}),
    Endpoint("slurmctld", "GET", "reconfigure/", "get_reconfigure", reconfigure),
    Endpoint("slurmctld", "GET", "jobs/", "get_jobs", get_jobs, _JOBS_EMPTY, query=("job_id",)),
    Endpoint("slurmctld", "DELETE", "jobs/", "delete_jobs", delete_jobs, {"status": []},
             body=schemas.obj(schemas.JOBS_SIGNAL, ("jobs",))),
    Endpoint("slurmctld", "GET", "jobs/state/", "get_jobs_state", get_jobs, _JOBS_EMPTY, query=("job_id",)),
    Endpoint("slurmctld", "GET", "job/{job_id}", "get_job", get_job, _JOBS_EMPTY),
    Endpoint("slurmctld", "POST", "job/{job_id}", "post_job", update_job, body=schemas.obj(schemas.JOB_UPDATE)),
    Endpoint("slurmctld", "DELETE", "job/{job_id}", "delete_job", delete_job, {"status": []},
             query=("signal", "flags")),
    Endpoint("slurmctld", "POST", "job/submit", "post_job_submit", submit_job, body=schemas.job_submission()),
    Endpoint("slurmctld", "POST", "job/allocate", "post_job_allocate", allocate_job, body=schemas.job_submission()),
    Endpoint("slurmctld", "GET", "nodes/", "get_nodes", get_nodes, _NODES_EMPTY),
    Endpoint("slurmctld", "POST", "nodes/", "post_nodes", update_nodes, body=schemas.obj(schemas.NODE_UPDATE)),
    Endpoint("slurmctld", "GET", "node/{node_name}", "get_node", get_node, _NODES_EMPTY),
    Endpoint("slurmctld", "POST", "node/{node_name}", "post_node", update_node, body=schemas.obj(schemas.NODE_UPDATE)),
    Endpoint("slurmctld", "DELETE", "node/{node_name}", "delete_node", delete_node),
    Endpoint("slurmctld", "GET", "partitions/", "get_partitions", get_partitions, _PARTS_EMPTY),
    Endpoint("slurmctld", "GET", "partition/{partition_name}", "get_partition", get_partition, _PARTS_EMPTY),
    Endpoint("slurmctld", "GET", "shares", "get_shares", get_shares, {"shares": {}}, query=("accounts", "users")),
    Endpoint("slurmctld", "GET", "licenses/", "get_licenses", get_licenses, {"licenses": [], "last_update": no_val(0)}),
    Endpoint("slurmctld", "GET", "reservations/", "get_reservations", get_reservations,
             {"reservations": [], "last_update": no_val(0)}),
    Endpoint("slurmctld", "GET", "reservation/{reservation_name}", "get_reservation", get_reservation,
             {"reservations": [], "last_update": no_val(0)}),
    Endpoint("slurmctld", "DELETE", "reservation/{reservation_name}", "delete_reservation", delete_reservation),
    Endpoint("slurmctld", "POST", "reservation", "post_reservation", post_reservation, {"reservations": []},
             body=schemas.obj(schemas.RESERVATION_DESC, ("name",))),
    Endpoint("slurmctld", "POST", "reservations/", "post_reservations", post_reservations, {"reservations": []},
             body=schemas.obj({"reservations": {"type": "array", "items": schemas.obj(schemas.RESERVATION_DESC)}},
                              ("reservations",))),
)
