"""``/slurmdb/v0.0.4x/``: the accounting daemon's endpoints (slurmrestd's openapi/slurmdbd).

Visibility is the accounting daemon's (PrivateData, admin levels), as for sacct and sacctmgr.
"""
from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from pyslurm_common.hostlist import HostlistError, expand
from pyslurm_common.rpc import dbd_pb2, types_pb2

from .endpoints import Call, Endpoint
from .envelope import INVALID_JOB_ID, RestError, RestWarning, no_val
from .job_fields import exit_code, job_state, time_limit

# A QOS's PreemptMode as the data parser names it; "cluster" (use the cluster's) shows as DISABLED.
_PREEMPT_MODES = {"OFF": "DISABLED", "SUSPEND": "SUSPEND", "REQUEUE": "REQUEUE", "CANCEL": "CANCEL",
                  "GANG": "GANG"}
_TRES_IDS = {"cpu": 1, "mem": 2, "energy": 3, "node": 4, "billing": 5}


def _cpu_time(usec: int) -> dict[str, int]:
    return {"seconds": usec // 1_000_000, "microseconds": usec % 1_000_000}


def _tres_list(cpus: int, mem_mb: int, nodes: int) -> list[dict[str, Any]]:
    return [{"type": kind, "name": "", "id": _TRES_IDS[kind], "count": count}
            for kind, count in (("cpu", cpus), ("mem", mem_mb), ("node", nodes), ("billing", cpus)) if count]


def step_record(job: types_pb2.JobInfo, step: types_pb2.StepInfo) -> dict[str, Any]:
    nodes = [n for n in step.nodes.split(",") if n]
    end = step.end_time
    return {
        "time": {"elapsed": max((end or int(time.time())) - step.start_time, 0) if step.start_time else 0,
                 "end": no_val(end), "start": no_val(step.start_time), "suspended": 0,
                 "system": _cpu_time(step.system_cpu_usec), "limit": time_limit(step.time_limit_min),
                 "total": _cpu_time(step.user_cpu_usec + step.system_cpu_usec), "user": _cpu_time(step.user_cpu_usec)},
        "exit_code": exit_code(step.exit_code, step.exit_signal),
        "nodes": {"count": len(nodes), "range": step.nodes, "list": nodes}, "tasks": {"count": step.num_tasks},
        "pid": "", "CPU": {"requested_frequency": {"min": no_val(0), "max": no_val(0)}, "governor": "0"},
        "kill_request_user": "", "state": [step.state or "RUNNING"],
        "statistics": {"CPU": {"actual_frequency": 0}, "energy": {"consumed": no_val(0)}},
        "step": {"id": f"{job.job_id}.{step.step_id}", "name": step.name, "stderr": "", "stdin": "", "stdout": "",
                 "stderr_expanded": "", "stdin_expanded": "", "stdout_expanded": ""},
        "task": {"distribution": "Unknown"},
        "tres": {"requested": {"max": [], "min": [], "average": [], "total": []},
                 "consumed": {"max": [], "min": [], "average": [], "total": []},
                 "allocated": _tres_list(step.num_cpus, 0, len(nodes))},
    }


def accounting_job(record: dbd_pb2.JobRecord) -> dict[str, Any]:
    job = record.job
    memory = job.mem_per_node_mb * max(job.num_nodes, 1) if job.mem_per_node_mb else job.mem_per_cpu_mb * job.num_cpus
    end = job.end_time or int(time.time())
    user_usec = sum(s.user_cpu_usec for s in record.steps)
    system_usec = sum(s.system_cpu_usec for s in record.steps)
    return {
        "account": job.account, "comment": {"administrator": "", "job": "", "system": ""},
        "allocation_nodes": job.num_nodes,
        "array": {"job_id": job.array_job_id, "limits": {"max": {"running": {"tasks": job.array_throttle}}},
                  "task_id": no_val(int(job.array_task_str)) if job.array_task_str.isdigit() else no_val(None),
                  "task": job.array_task_str if not job.array_task_str.isdigit() else ""},
        "association": {"account": job.account, "cluster": record.cluster, "partition": "", "user": job.user_name,
                        "id": record.assoc_id},
        "block": "", "cluster": record.cluster, "constraints": job.features, "container": "",
        "derived_exit_code": exit_code(0, 0),
        "time": {"elapsed": max(end - job.start_time, 0) if job.start_time else 0, "eligible": job.eligible_time,
                 "end": job.end_time, "planned": no_val(max(job.start_time - job.eligible_time, 0) if job.start_time else 0),
                 "start": job.start_time, "submission": job.submit_time, "suspended": job.suspended_secs,
                 "system": _cpu_time(system_usec), "limit": time_limit(job.time_limit_min),
                 "total": _cpu_time(user_usec + system_usec), "user": _cpu_time(user_usec)},
        "exit_code": exit_code(job.exit_code, job.exit_signal), "extra": "", "failed_node": "", "flags": [],
        "group": job.group_name, "het": {"job_id": 0, "job_offset": no_val(None)}, "job_id": job.job_id,
        "name": job.name, "licenses": "", "mcs": {"label": ""}, "nodes": job.nodes or "None assigned",
        "partition": job.partition, "hold": job.held, "priority": no_val(job.priority), "qos": job.qos, "qosreq": "",
        "required": {"CPUs": job.num_cpus,
                     "memory_per_cpu": no_val(job.mem_per_cpu_mb) if job.mem_per_cpu_mb else no_val(None),
                     "memory_per_node": no_val(job.mem_per_node_mb) if job.mem_per_node_mb else no_val(None)},
        "kill_request_user": "", "restart_cnt": job.restarts, "reservation": {"id": 0, "name": job.reservation, "requested": job.reservation},
        "script": "", "segment_size": 0, "stdin_expanded": job.std_in, "stdout_expanded": job.std_out,
        "stderr_expanded": job.std_err, "stdout": job.std_out, "stderr": job.std_err, "stdin": job.std_in,
        "state": {"current": job_state(job), "reason": job.reason or "None"},
        "steps": [step_record(job, s) for s in record.steps], "submit_line": job.submit_line,
        "tres": {"allocated": _tres_list(job.num_cpus, memory, job.num_nodes) if job.start_time else [],
                 "requested": _tres_list(job.num_cpus, memory, job.num_nodes)},
        "used_gres": "", "user": job.user_name, "wckey": {"wckey": "", "flags": []},
        "working_directory": job.work_dir,
    }


def _ints(text: str, field: str) -> list[int]:
    values = [v for v in text.split(",") if v]
    if not all(v.isdigit() and len(v) <= 10 for v in values):
        raise RestError(f"Invalid {field}", 9000, "_op_handler_jobs()")
    return [int(v) for v in values]


# The slurmdb jobs/ query parameters pyslurm acts on, as sacct's options do. Accepted without
# effect: `format` (Slurm's document: "Ignored"), and the hetjob and result-waiting switches,
# which change nothing where there are no heterogeneous jobs and the answer is always awaited.
# Any other (association, exit_code, reason, reservation, wckey, step, show_batch_script, the
# scheduled_* bits ...) is refused by name, not ignored: ignoring a filter would list more jobs
# than asked.
_LISTS = {"users": "users", "account": "accounts", "partition": "partitions", "state": "states",
          "job_name": "names", "qos": "qos", "groups": "groups"}
_SWITCHES = {"show_duplicates": "duplicates", "skip_steps": "without_steps"}
_NO_EFFECT = frozenset({"format", "whole_hetjob", "disable_whole_hetjob", "disable_wait_for_result"})
JOB_FILTERS = frozenset({*_LISTS, *_SWITCHES, *_NO_EFFECT, "start_time", "end_time", "jobs", "job_name_ids",
                         "node", "cluster"})
_TRUE, _FALSE = frozenset({"", "true", "yes", "1"}), frozenset({"false", "no", "0"})


def _switch(text: str, name: str) -> bool:
    word = text.strip().lower()
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise RestError(f"Invalid {name}: expected true or false", 9000, "_op_handler_jobs()")


def _csv(call: Call, name: str) -> list[str]:
    return [v for v in call.query(name).split(",") if v]


def _node_names(text: str) -> list[str]:
    """`node`: a ranged node string (n[1-3],gpu1), as sacct's -N."""
    try:
        return expand(text) if text else []
    except HostlistError:
        raise RestError(f"Invalid node: {text}", 9000, "_op_handler_jobs()") from None


async def get_jobs(call: Call) -> dict[str, Any]:
    given = call.request.query
    unknown = sorted(set(given) - JOB_FILTERS)
    if unknown:
        raise RestError(f"Query parameters not supported by pyslurm: {', '.join(unknown)}", 9000,
                        "_op_handler_jobs()")
    clusters = _csv(call, "cluster")
    if clusters and call.ctx.cluster not in clusters:     # another cluster's jobs: none here
        call.warnings.append(RestWarning("slurmdb_jobs_get() found nothing", "_dump_jobs"))
        return {"jobs": []}
    query = dbd_pb2.AccountingQuery(
        job_ids=_ints(call.query("job_name_ids") or call.query("jobs"), "jobs"),
        start_time=_ints(call.query("start_time"), "start_time")[0] if call.query("start_time") else 0,
        end_time=_ints(call.query("end_time"), "end_time")[0] if call.query("end_time") else 0,
        nodes=_node_names(call.query("node")), all_users=not call.query("users"),
        **{field: _csv(call, name) for name, field in _LISTS.items()},
        **{field: _switch(given[name], name) for name, field in _SWITCHES.items() if name in given})
    reply = await call.accounting("QueryJobs", query, dbd_pb2.JobRecordBatch, "slurmdb_jobs_get()",
                                  "Unable to query jobs")
    return _jobs(call, reply)


def _jobs(call: Call, reply: dbd_pb2.JobRecordBatch) -> dict[str, Any]:
    """slurmrestd's _dump_jobs: nothing found is a warning, not an error (200, no jobs)."""
    if not reply.records:
        call.warnings.append(RestWarning("slurmdb_jobs_get() found nothing", "_dump_jobs"))
    return {"jobs": [accounting_job(r) for r in reply.records]}


async def get_job(call: Call) -> dict[str, Any]:
    text = call.param("job_id")
    if not text.isdigit() or len(text) > 10:
        raise RestError("Invalid job id specified", INVALID_JOB_ID, "_op_handler_job()", "Invalid job id specified")
    reply = await call.accounting("QueryJobs", dbd_pb2.AccountingQuery(job_ids=[int(text)], all_users=True),
                                  dbd_pb2.JobRecordBatch, "slurmdb_jobs_get()", "Unable to query jobs")
    return _jobs(call, reply)


async def _show(call: Call, entity: str, where: list[dbd_pb2.Setting] | None = None,
                with_assoc: bool = False) -> dbd_pb2.AssociationEntities:
    return await call.accounting("ShowAssociations", dbd_pb2.AssociationShow(entity=entity, where=where or [],
                                                                             with_assoc=with_assoc),
                                 dbd_pb2.AssociationEntities, f"slurmdb_{entity}s_get()", f"Unable to query {entity}s")


def _assoc_short(a: dbd_pb2.AssociationRecord) -> dict[str, Any]:
    return {"account": a.key.account, "cluster": a.key.cluster, "partition": a.key.partition, "user": a.key.user,
            "id": a.id}


def _tres_count(text: str) -> list[dict[str, Any]]:
    items = []
    for part in (p for p in text.split(",") if p):
        kind, _, count = part.partition("=")
        if count.lstrip("-").isdigit():
            base, _, name = kind.partition("/")
            items.append({"type": base, "name": name, "id": _TRES_IDS.get(kind, 1001), "count": int(count)})
    return items


def _limit(value: int | None) -> dict[str, Any]:
    return no_val(value) if value is not None else {"set": False, "infinite": True, "number": 0}


def _opt(message: Any, field: str) -> dict[str, Any]:
    """An optional limit: its value, or Slurm's "no limit" (infinite)."""
    return _limit(getattr(message, field) if message.HasField(field) else None)


def association_record(a: dbd_pb2.AssociationRecord) -> dict[str, Any]:
    limits = a.limits
    return {
        "accounting": [], "account": a.key.account, "cluster": a.key.cluster, "comment": "",
        "default": {"qos": a.default_qos}, "flags": [], "id": a.id, "is_default": False,
        "lineage": f"/{a.parent_account}/{a.key.account}/" if a.parent_account else f"/{a.key.account}/",
        "max": {"jobs": {"per": {"count": _opt(limits, "max_jobs"), "accruing": _limit(None),
                                 "submitted": _opt(limits, "max_submit"), "wall_clock": _opt(limits, "max_wall")},
                         "active": _opt(limits, "grp_jobs"), "accruing": _limit(None),
                         "total": _opt(limits, "grp_submit")},
                "tres": {"total": _tres_count(limits.grp_tres), "group": {"minutes": [], "active": []},
                         "minutes": {"total": [], "per": {"job": []}},
                         "per": {"job": _tres_count(limits.max_tres), "node": _tres_count(limits.max_tres_per_node)}},
                "per": {"account": {"wall_clock": _opt(limits, "grp_wall")}}},
        "min": {"priority_threshold": _limit(None)}, "parent_account": a.parent_account,
        "partition": a.key.partition, "priority": no_val(a.priority) if a.HasField("priority") else no_val(None),
        "qos": list(a.qos), "shares_raw": a.shares, "user": a.key.user,
    }


def _coord_list(names: Iterable[str], direct: Iterable[str]) -> list[dict[str, Any]]:
    """Slurm's coord_list: each name, and whether it was granted itself or only through a parent account."""
    granted = set(direct)
    return [{"name": name, "direct": name in granted} for name in names]


async def get_accounts(call: Call) -> dict[str, Any]:
    entities = await _show(call, "account", with_assoc=True)
    return {"accounts": [{"associations": [_assoc_short(a) for a in entities.associations
                                           if a.key.account == acct.name and not a.key.user],
                          "coordinators": _coord_list(acct.coordinators, acct.direct_coordinators),
                          "description": acct.description, "name": acct.name,
                          "organization": acct.organization, "flags": []} for acct in entities.accounts]}


async def get_account(call: Call) -> dict[str, Any]:
    name = call.param("account_name")
    found = [a for a in (await get_accounts(call))["accounts"] if a["name"] == name]
    return {"accounts": found}


async def get_users(call: Call) -> dict[str, Any]:
    entities = await _show(call, "user", with_assoc=True)
    return {"users": [{"administrator_level": [u.admin_level or "None"],
                       "associations": [_assoc_short(a) for a in entities.associations if a.key.user == u.name],
                       "coordinators": _coord_list(u.coord_accounts, u.direct_coord_accounts),
                       "default": {"account": u.default_account, "wckey": ""}, "flags": [],
                       "name": u.name, "old_name": "", "wckeys": []} for u in entities.users]}


async def get_user(call: Call) -> dict[str, Any]:
    name = call.param("name")
    return {"users": [u for u in (await get_users(call))["users"] if u["name"] == name]}


async def get_associations(call: Call) -> dict[str, Any]:
    entities = await _show(call, "association")
    return {"associations": [association_record(a) for a in entities.associations]}


def qos_record(q: dbd_pb2.QosRecord) -> dict[str, Any]:
    limits = q.limits
    return {
        "description": q.description, "flags": list(q.flags), "id": q.id, "name": q.name,
        "limits": {
            "grace_time": q.grace_time,
            "max": {"active_jobs": {"accruing": _limit(None), "count": _opt(limits, "grp_jobs")},
                    "jobs": {"count": _opt(limits, "grp_submit"),
                             "active_jobs": {"per": {"account": _opt(q, "max_jobs_per_account"),
                                                     "user": _opt(q, "max_jobs_per_user")}},
                             "per": {"account": _opt(q, "max_submit_per_account"), "user": _opt(q, "max_submit_per_user")}},
                    "tres": {"total": _tres_count(limits.grp_tres),
                             "minutes": {"total": [], "per": {"qos": [], "job": [], "account": [], "user": []}},
                             "per": {"account": _tres_count(q.max_tres_per_account), "job": _tres_count(limits.max_tres),
                                     "node": _tres_count(limits.max_tres_per_node), "user": _tres_count(q.max_tres_per_user)}},
                    "wall_clock": {"per": {"qos": _opt(limits, "grp_wall"), "job": _opt(limits, "max_wall")}},
                    "accruing": {"per": {"account": _limit(None), "user": _limit(None)}}},
            "factor": {"set": False, "infinite": True, "number": 0.0},
            "min": {"priority_threshold": _limit(None), "tres": {"per": {"job": _tres_count(q.min_tres)}}}},
        "preempt": {"list": list(q.preempt), "mode": [_PREEMPT_MODES.get(q.preempt_mode.upper(), "DISABLED")],
                    "exempt_time": _opt(q, "preempt_exempt_time")},
        "priority": no_val(q.priority), "usage_factor": no_val(q.usage_factor),
        "usage_threshold": no_val(q.usage_threshold) if q.HasField("usage_threshold") else no_val(None),
    }


async def get_qos(call: Call) -> dict[str, Any]:
    return {"qos": [qos_record(q) for q in (await _show(call, "qos")).qos]}


async def get_tres(call: Call) -> dict[str, Any]:
    return {"TRES": [{"type": t.type, "name": t.name, "id": t.id, "count": 0} for t in (await _show(call, "tres")).tres]}


async def get_clusters(call: Call) -> dict[str, Any]:
    entities = await _show(call, "cluster")
    return {"clusters": [{"controller": {"host": c.control_host, "port": c.control_port}, "flags": [], "name": c.name,
                          "nodes": "", "select_plugin": "", "associations": {"root": _assoc_short(c.root)},
                          "rpc_version": c.rpc_version, "tres": []} for c in entities.clusters]}


async def get_config(call: Call) -> dict[str, Any]:
    return {**await get_clusters(call), "tres": (await get_tres(call))["TRES"], **await get_accounts(call),
            **await get_users(call), **await get_qos(call), "wckeys": [], **await get_associations(call),
            "instances": []}


async def get_wckeys(call: Call) -> dict[str, Any]:
    """pyslurm keeps no WCKeys (no TrackWCKey): slurmrestd's answer for none, whatever the filters."""
    call.warnings.append(RestWarning("slurmdb_wckeys_get() found nothing", "_dump_wckeys"))
    return {"wckeys": []}


async def get_instances(call: Call) -> dict[str, Any]:
    """Nor cloud instances: slurmrestd then dumps nothing, not even the empty list."""
    call.warnings.append(RestWarning("slurmdb_instances_get() found nothing", "_dump_instance_cond"))
    return {}


async def ping(call: Call) -> dict[str, Any]:
    started = time.monotonic()
    await call.accounting("Ping", types_pb2.Empty(), types_pb2.Empty, "slurmdb_ping()", "Unable to ping slurmdbd")
    return {"pings": [{"hostname": call.ctx.accounting_host, "responding": True,
                       "latency": int((time.monotonic() - started) * 1e6), "primary": True}]}


def _rollup(runs: list[dbd_pb2.RollupCount]) -> dict[str, Any]:
    return {"count": sum(r.count for r in runs), "last_run": max((r.last_run for r in runs), default=0),
            "duration": {"last": max(runs, key=lambda r: r.last_run).last_usec // 1_000_000 if runs else 0,
                         "max": max((r.max_usec for r in runs), default=0) // 1_000_000,
                         "time": sum(r.total_usec for r in runs) // 1_000_000}}


def _call_times(c: dbd_pb2.CallCount) -> dict[str, int]:
    return {"average": c.total_usec // c.count if c.count else 0, "total": c.total_usec}


async def diag(call: Call) -> dict[str, Any]:
    """sacctmgr show stats; pyslurm rolls up hours only (sreport sums them), so the daily and
    monthly roll-ups never ran."""
    stats = await call.accounting("GetStats", types_pb2.Empty(), dbd_pb2.AccountingStats, "slurmdb_get_stats",
                                  "stats query failed")
    hourly = [r for r in stats.rollups if r.interval == "hour"]
    return {"statistics": {
        "time_start": stats.time_start,
        "rollups": {"hourly": _rollup(hourly), "daily": _rollup([]), "monthly": _rollup([])},
        "RPCs": [{"rpc": c.name, "count": c.count, "time": _call_times(c)} for c in stats.rpcs],
        "users": [{"user": c.name, "count": c.count, "time": _call_times(c)} for c in stats.users]}}


ENDPOINTS = (
    Endpoint("slurmdbd", "GET", "jobs/", "get_jobs", get_jobs, {"jobs": []}, query=tuple(sorted(JOB_FILTERS))),
    Endpoint("slurmdbd", "GET", "job/{job_id}", "get_job", get_job, {"jobs": []}),
    Endpoint("slurmdbd", "GET", "accounts/", "get_accounts", get_accounts, {"accounts": []}),
    Endpoint("slurmdbd", "GET", "account/{account_name}", "get_account", get_account, {"accounts": []}),
    Endpoint("slurmdbd", "GET", "users/", "get_users", get_users, {"users": []}),
    Endpoint("slurmdbd", "GET", "user/{name}", "get_user", get_user, {"users": []}),
    Endpoint("slurmdbd", "GET", "associations/", "get_associations", get_associations, {"associations": []}),
    Endpoint("slurmdbd", "GET", "qos/", "get_qos", get_qos, {"qos": []}),
    Endpoint("slurmdbd", "GET", "tres/", "get_tres", get_tres, {"TRES": []}),
    Endpoint("slurmdbd", "GET", "clusters/", "get_clusters", get_clusters, {"clusters": []}),
    Endpoint("slurmdbd", "GET", "config", "get_config", get_config),
    Endpoint("slurmdbd", "GET", "wckeys/", "get_wckeys", get_wckeys, {"wckeys": []}),
    Endpoint("slurmdbd", "GET", "instances/", "get_instances", get_instances),
    Endpoint("slurmdbd", "GET", "ping/", "get_ping", ping, {"pings": []}),
    Endpoint("slurmdbd", "GET", "diag/", "get_diag", diag, {"statistics": {}}),
)
