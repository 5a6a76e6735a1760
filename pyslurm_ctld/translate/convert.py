"""Translation between controller domain records and wire messages.

The only controller module besides the servicer and the links that knows the
protobuf types; domain code never imports them.
"""
from __future__ import annotations

from typing import Any

from pyslurm_common.array_spec import format_ranges
from pyslurm_common.conf_records import PartitionConfig
from pyslurm_common.preempt_conf import ModeSpec
from pyslurm_common.bounds import GPU_COUNT, check_fields
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.filename_pattern import PatternContext, resolve
from pyslurm_common.gres import GPU, GresError, format_gres_used, parse_gpu_option, parse_gres, parse_gres_request
from pyslurm_common.hostlist import HostlistError, compress, compress_numbers, expand
from pyslurm_common.rpc import ctld_pb2, dbd_pb2, types_pb2

from ..sched.backfill import Reservation
from ..sched.fairshare import ShareRow
from ..model.events import BatchFinished, Event, JobLost, StepFinished
from ..model.job import GpuUsage, Hold, Job, JobId, JobRequest, JobState, Reason, Step, StepUsage
from .job_env import compress_counts
from ..core.usage import NodeUsage
from .node_events import NodeEvent
from ..model.nodes import NodeRecord
from ..sched.priority import PriorityFactors
from ..settings.priority_settings import PrioritySettings
from ..model.reservations import ReservationRecord


DEFAULT_OUTPUTS = ("slurm-%j.out", "slurm-%A_%a.out")   # what request_from_desc fills in without -o


def request_from_desc(desc: types_pb2.JobDesc, requeue_default: bool = True) -> JobRequest:
    """The raw request; the core resolves defaults and validates it. Without --requeue or
    --no-requeue a job may be requeued as slurm.conf's JobRequeue says (`requeue_default`).
    Every number must be within its bound (SlurmError otherwise): the wire allows more."""
    check_fields(desc)
    name = desc.name or "sbatch"
    std_out = desc.std_out or DEFAULT_OUTPUTS[bool(desc.array)]
    return JobRequest(
        name=name, partition=desc.partitions[0] if desc.partitions else "", partitions=tuple(desc.partitions),
        account=desc.account, qos=desc.qos, min_nodes=max(1, desc.min_nodes),
        num_tasks=max(1, desc.num_tasks), cpus_per_task=max(1, desc.cpus_per_task),
        ntasks_given=desc.ntasks_given, cpus_per_task_given=desc.cpus_per_task_given,
        mem_per_node_mb=desc.mem_per_node_mb, mem_per_cpu_mb=desc.mem_per_cpu_mb,
        time_limit_min=desc.time_limit_min, work_dir=desc.work_dir or "/tmp",
        std_out=std_out, std_err=desc.std_err or std_out, std_in=desc.std_in or "/dev/null",
        script=desc.script, environment=tuple(desc.environment), argv=tuple(desc.argv),
        command=desc.command, submit_host=desc.submit_host, umask=desc.umask,
        export_env=desc.export_env, append_output=desc.open_mode == "append", nice=desc.nice,
        requeue=desc.requeue if desc.requeue_set else requeue_default,
        rlimits=tuple(desc.rlimits), signal_number=desc.signal_number,
        signal_seconds=desc.signal_seconds, signal_batch_only=desc.signal_batch_only,
        begin_time=desc.begin_time, kill_on_invalid_dep=desc.kill_on_invalid_dep,
        launcher=_launcher(desc.launcher), required_nodes=_node_names(desc.nodelist),
        excluded_nodes=_node_names(desc.exclude), features=desc.constraint.strip(),
        batch_features=desc.batch_features.strip(),
        exclusive=desc.exclusive, submit_line=desc.submit_line, comment=desc.comment,
        mail_type=desc.mail_type, mail_user=desc.mail_user, **_shape_request(desc), **_gpu_request(desc),
        **_scheduling_request(desc),
    )


def _node_names(hostlist: str) -> tuple[str, ...]:
    try:
        return tuple(expand(hostlist)) if hostlist else ()
    except HostlistError as exc:
        raise SlurmError(Strerror.INVALID_NODE_NAME, str(exc)) from exc


def _launcher(name: str) -> str:
    if name not in ("", "srun", "salloc"):
        raise SlurmError(Strerror.INVALID_ARGUMENT, f"unknown launcher {name}")
    return name


def _shape_request(desc: types_pb2.JobDesc) -> dict[str, Any]:
    """The JobRequest fields of the per-GPU, disk, overcommit, layout, license and reservation
    options (admission checks the licenses and the reservation)."""
    return {"licenses": desc.licenses, "reservation": desc.reservation, "mem_per_gpu_mb": desc.mem_per_gpu_mb, "cpus_per_gpu": desc.cpus_per_gpu,
            "tmp_disk_mb": desc.tmp_disk_mb, "overcommit": desc.overcommit,
            "ntasks_per_node": desc.ntasks_per_node, "ntasks_per_core": desc.ntasks_per_core,
            "ntasks_per_socket": desc.ntasks_per_socket, "threads_per_core": desc.threads_per_core,
            "distribution": desc.distribution, "gpu_bind": desc.gpu_bind, "ntasks_per_gpu": desc.ntasks_per_gpu,
            "min_cpus_per_node": desc.min_cpus_per_node}


def _scheduling_request(desc: types_pb2.JobDesc) -> dict[str, Any]:
    """The JobRequest fields of cli/scheduling_options.py's options."""
    return {"time_min_min": desc.time_min, "deadline": desc.deadline,
            "priority": desc.priority if desc.priority_given else 0, "contiguous": desc.contiguous,
            "sockets_per_node": desc.sockets_per_node, "cores_per_socket": desc.cores_per_socket,
            "cpu_freq": desc.cpu_freq, "acctg_freq": desc.acctg_freq, "no_kill": desc.no_kill,
            "prefer": desc.prefer.strip(), "over_subscribe": desc.over_subscribe, "gpu_freq": desc.gpu_freq,
            "spread_job": desc.spread_job and not desc.min_nodes,   # -N wins, as Slurm's node range
            "node_count_given": desc.min_nodes > 0}


def _scheduling_info(req: JobRequest) -> dict[str, Any]:
    return {"time_min": req.time_min_min, "deadline": req.deadline, "contiguous": req.contiguous,
            "sockets_per_node": req.sockets_per_node, "cores_per_socket": req.cores_per_socket,
            "cpu_freq": req.cpu_freq, "prefer": req.prefer, "over_subscribe": req.over_subscribe}


def _gpu_request(desc: types_pb2.JobDesc) -> dict[str, Any]:
    """The JobRequest GPU fields of --gres / --gpus* as given (the core normalises them).

    Only gpu GRES are scheduled, one type per job, through one option: anything else, or a
    string that does not parse, is `Invalid generic resource (gres) specification`.
    """
    try:
        specs = parse_gres_request(desc.gres)
        if desc.gpu_type:
            parse_gpu_option(f"{desc.gpu_type}:1")     # the type must be a valid GRES type name
    except GresError as exc:
        raise SlurmError(Strerror.INVALID_GRES) from exc
    if any(s.name != GPU for s in specs) or len(specs) > 1:
        raise SlurmError(Strerror.INVALID_GRES)
    from_gres = specs[0] if specs else None
    if from_gres is not None:
        GPU_COUNT.refuse(from_gres.count)     # the wire's GPU counts are uint32
    options = [from_gres is not None, desc.gpus > 0, desc.gpus_per_node > 0, desc.gpus_per_task > 0]
    if sum(options) > 1 or (desc.gpu_type and not any(options[1:])):
        raise SlurmError(Strerror.INVALID_GRES)
    return {
        "gpus_per_node": from_gres.count if from_gres else desc.gpus_per_node,
        "gpu_type": from_gres.type if from_gres else desc.gpu_type,
        "gpus": desc.gpus, "gpus_per_task": desc.gpus_per_task,
        "gpus_per_node_given": desc.gpus_per_node > 0,
    }


def pattern_context(job: Job, node: str = "") -> PatternContext:
    array = job.array
    return PatternContext(job_id=job.job_id, job_name=job.request.name, user_name=job.user_name,
                          node_name=node, array_job_id=array.array_job_id if array else None,
                          array_task_id=array.task_id if array else None)


def given_io_patterns(req: JobRequest) -> tuple[str, str]:
    """-o and -e as Slurm keeps them (squeue --json's standard_output/error): the patterns as given,
    unexpanded, made absolute against the working directory; "" for a default."""
    def absolute(pattern: str) -> str:
        return pattern if pattern.startswith("/") else f"{req.work_dir.rstrip('/')}/{pattern}"
    return ("" if req.std_out in DEFAULT_OUTPUTS else absolute(req.std_out),
            "" if req.std_err == req.std_out else absolute(req.std_err))


def io_paths(job: Job) -> tuple[str, str, str]:
    node = job.allocation.batch_host if job.allocation else ""
    ctx = pattern_context(job, node)
    req = job.request
    return (resolve(req.std_out, ctx, req.work_dir), resolve(req.std_err, ctx, req.work_dir),
            resolve(req.std_in, ctx, req.work_dir))


def job_info(job: Job, now: int = 0, expected: Reservation | None = None,
             unavailable: tuple[str, ...] = (), gpu_idle_seconds: int = 0) -> types_pb2.JobInfo:
    """The wire form of a job; `expected` is the start backfill expects for it, if pending;
    `unavailable`, its -w nodes that are down or drained (named with ReqNodeNotAvail, as Slurm);
    `gpu_idle_seconds`, how long the idle-GPU policy has seen its GPUs idle."""
    req = job.request
    alloc = job.allocation
    std_out, std_err, std_in = io_paths(job)
    std_out_given, std_err_given = given_io_patterns(req)
    return types_pb2.JobInfo(
        job_id=job.job_id, name=req.name, user_id=job.uid, group_id=job.gid,
        user_name=job.user_name, group_name=job.group_name,
        partition=",".join(req.partitions) if req.partitions and job.state is JobState.PENDING else req.partition,
        account=req.account, qos=req.qos, state=str(job.state), completing=job.completing,
        reason=f"{job.reason}, UnavailableNodes:{compress(unavailable)}"
        if job.reason is Reason.REQ_NODE_NOT_AVAIL and unavailable else str(job.reason),
        priority=job.priority, nice=req.nice,
        num_nodes=len(alloc.nodes) if alloc else req.min_nodes,
        num_cpus=alloc.total_cpus if alloc else req.total_cpus,
        num_tasks=req.num_tasks, cpus_per_task=req.cpus_per_task,
        mem_per_node_mb=req.mem_per_node_mb, mem_per_cpu_mb=req.mem_per_cpu_mb,
        time_limit_min=req.time_limit_min, submit_time=job.submit_time,
        eligible_time=job.eligible_time, start_time=job.start_time, end_time=job.end_time,
        nodes=compress(alloc.nodes) if alloc else "", batch_host=alloc.batch_host if alloc else "",
        exit_code=job.exit_code, exit_signal=job.exit_signal, work_dir=req.work_dir,
        std_out=std_out, std_err=std_err, std_in=std_in, command=req.command,
        std_out_given=std_out_given, std_err_given=std_err_given,
        requeue=req.requeue, restarts=job.restarts, submit_host=req.submit_host,
        held=job.hold is not Hold.NONE, ntasks_given=req.ntasks_given,
        cpus_per_task_given=req.cpus_per_task_given,
        cancelled=job.state is JobState.CANCELLED and job.cancelled_by is not None,
        cancelled_by=job.cancelled_by or 0,
        tres_per_node=req.gres_request, gpus=_job_gpus(job),
        gpu_indices=",".join(str(i) for i in alloc.gpus_on(0)) if alloc else "",
        node_names=alloc.nodes if alloc else (), cpus_per_node=alloc.cpus_per_node if alloc else (),
        node_cpu_ids=[format_ranges(alloc.cpus_on(i)) for i in range(len(alloc.nodes))] if alloc else (),
        node_memory_mb=alloc.memory_mb_per_node if alloc else (),
        node_gpu_ids=[",".join(map(str, alloc.gpus_on(i))) for i in range(len(alloc.nodes))] if alloc else (),
        steps=[step_info(job, step) for step in job.steps], launcher=req.launcher,
        req_nodes=compress(req.required_nodes) if req.required_nodes else "",
        exc_nodes=compress(req.excluded_nodes) if req.excluded_nodes else "",
        dependency=_dependency_text(job, now), suspended_secs=job.suspended_secs,
        suspend_time=job.suspend_time, **_array_fields(job),
        expected_start=expected.start_time if expected else 0,
        sched_nodes=compress(expected.nodes) if expected else "", features=req.features, exclusive=req.exclusive,
        batch_features=req.batch_features,
        submit_line=req.submit_line, comment=req.comment, mail_type=req.mail_type,
        mail_user=(req.mail_user or job.user_name) if req.mail_type else req.mail_user,
        gpu_idle_seconds=gpu_idle_seconds,
        mem_per_gpu_mb=req.mem_per_gpu_mb, cpus_per_gpu=req.cpus_per_gpu, tmp_disk_mb=req.tmp_disk_mb,
        overcommit=req.overcommit, ntasks_per_core=req.ntasks_per_core, ntasks_per_socket=req.ntasks_per_socket,
        threads_per_core=req.threads_per_core, distribution=req.distribution, ntasks_per_node=req.ntasks_per_node,
        gpu_bind=req.gpu_bind, ntasks_per_gpu=req.ntasks_per_gpu, min_cpus_per_node=req.min_cpus_per_node,
        licenses=req.licenses, reservation=req.reservation,
        **_scheduling_info(req),
    )


def reservation_info(record: ReservationRecord, nodes: dict[str, NodeRecord], now: int) -> ctld_pb2.ReservationInfo:
    """What `scontrol show reservation` and `sinfo -T` print of one reservation (its current or
    next occurrence)."""
    start, end = record.window(now)
    configs = [nodes[n].config for n in record.nodes if n in nodes]
    if record.cpu_ids:     # CoreCnt=: its cores (ThreadsPerCore CPU ids each), not whole nodes
        cpus = sum(len(ids) for ids in record.cpu_ids)
        cores = sum(len(ids) // max(1, c.threads_per_core) for ids, c in zip(record.cpu_ids, configs))
    else:
        cpus, cores = sum(c.cpus for c in configs), sum(c.sockets * c.cores_per_socket for c in configs)
    return ctld_pb2.ReservationInfo(
        name=record.name, start_time=start, end_time=end, nodes=compress(record.nodes) if record.nodes else "",
        node_count=len(record.nodes), core_count=cores,
        partition=record.partition, flags=",".join(record.flags), users=",".join(record.users),
        accounts=",".join(record.accounts), tres=f"cpu={cpus}", licenses=record.licenses,
        # slurmctld lists a core reservation's cores only while it is in force
        core_nodes=record.nodes if record.cpu_ids and record.active(now) else (),
        core_ids=[compress_numbers(sorted({cpu // max(1, c.threads_per_core) for cpu in ids}))
                  for ids, c in zip(record.cpu_ids, configs)] if record.cpu_ids and record.active(now) else ())


def reservation_record(record: ReservationRecord, nodes: dict[str, NodeRecord], cluster: str, deleted: bool,
                       time: int) -> dbd_pb2.ReservationRecord:
    """A reservation's change for accounting; a deleted one that had started ends when deleted."""
    info = reservation_info(record, nodes, time)
    return dbd_pb2.ReservationRecord(
        cluster=cluster, id=record.reservation_id, name=record.name, time_start=info.start_time,
        time_end=min(info.end_time, time) if deleted and info.start_time <= time else info.end_time,
        nodes=info.nodes, node_count=info.node_count, flags=info.flags, cpus=int(info.tres.removeprefix("cpu=")),
        users=info.users, accounts=info.accounts, deleted=deleted, time=time)


def step_usage(request: ctld_pb2.StepCompletion | ctld_pb2.BatchCompletion, node: str = "") -> StepUsage:
    """What a node reported a step (or the batch script) used."""
    gpus = tuple(GpuUsage(g.node, g.index, g.samples, g.util_ave, g.util_max, g.mem_ave_bytes, g.mem_max_bytes,
                          g.power_max_mw, g.lost, tuple(g.foreign_pids)) for g in request.gpus)
    return StepUsage(request.max_rss_kb, request.user_cpu_usec, request.system_cpu_usec, node, gpus)


def gpu_usage_info(usage: StepUsage | None) -> list[types_pb2.GpuUsage]:
    if usage is None:
        return []
    return [types_pb2.GpuUsage(node=g.node, index=g.index, samples=g.samples, util_ave=g.util_ave,
                               util_max=g.util_max, mem_ave_bytes=g.mem_ave_bytes, mem_max_bytes=g.mem_max_bytes,
                               power_max_mw=g.power_max_mw, lost=g.lost, foreign_pids=g.foreign_pids)
            for g in usage.gpus]


def step_info(job: Job, step: Step) -> types_pb2.StepInfo:
    usage = step.usage
    return types_pb2.StepInfo(
        job_id=job.job_id, step_id=str(step.step_id), name=step.name, state=str(step.state),
        exit_code=step.exit_code, exit_signal=step.exit_signal, start_time=step.start_time,
        end_time=step.end_time, nodes=compress(step.nodes), num_cpus=step.num_cpus, num_tasks=step.num_tasks,
        max_rss_kb=usage.max_rss_kb if usage else 0, user_cpu_usec=usage.user_cpu_usec if usage else 0,
        system_cpu_usec=usage.system_cpu_usec if usage else 0, max_rss_node=usage.max_rss_node if usage else "",
        time_limit_min=job.request.time_limit_min,
        partition=job.request.partition, user_id=job.uid, user_name=job.user_name, argv=step.argv,
        tasks_per_node=compress_counts(step.tasks_per_node), gpus=gpu_usage_info(usage))


def _dependency_text(job: Job, now: int) -> str:
    """The parts still standing while pending, and as they stood when it ended if it never ran
    (cancelled while pending, as Slurm keeps them): squeue %E, scontrol `Dependency=`."""
    if job.dependency is None or (job.state is not JobState.PENDING and job.allocation is not None):
        return ""
    # Whether a singleton part is free is the scheduler's finding, which the reason records.
    return job.dependency.remaining_text(now, singleton_free=job.reason is not Reason.DEPENDENCY)


def _array_fields(job: Job) -> dict[str, Any]:
    array = job.array
    if array is None or (array.is_remainder and not array.pending):
        return {}   # every index cancelled while pending: Slurm prints the bare id (task NO_VAL)
    task = str(array.task_id) if array.task_id is not None else format_ranges(array.pending)
    return {"array_job_id": array.array_job_id, "array_task_str": task, "array_throttle": array.throttle,
            "array_remainder": array.is_remainder}


def _job_gpus(job: Job) -> int:
    """GPUs of the whole job: allocated once started, requested while pending."""
    if job.allocation is not None:
        return job.allocation.total_gpus
    req = job.request
    return req.gpus or req.gpus_per_node * max(1, req.min_nodes)


def job_record(job: Job, cluster: str) -> dbd_pb2.JobRecord:
    info = job_info(job)
    if job.state is JobState.CANCELLED and job.cancelled_by is None and job.allocation is None:
        # The controller's own cancel of a job that never ran (kill_invalid_depend): Slurm 22.05.8's
        # accounting has no start for it and the reason it waited with (sacct: Start None, Reason
        # Dependency), where scontrol shows StartTime= the cancel and DependencyNeverSatisfied.
        info.start_time = 0
        if job.reason is Reason.DEPENDENCY_NEVER_SATISFIED:
            info.reason = str(Reason.DEPENDENCY)
    steps = []
    if (job.start_time and job.state is not JobState.PENDING and job.allocation is not None
            and not job.request.interactive):
        done = job.state.is_finished and not job.completing
        steps.append(types_pb2.StepInfo(
            job_id=job.job_id, step_id="batch", name="batch",
            state=_batch_step_state(job) if done else "RUNNING",
            exit_code=job.exit_code if done else 0, exit_signal=job.exit_signal if done else 0,
            start_time=job.start_time, end_time=job.end_time if done else 0,
            nodes=job.allocation.batch_host, num_cpus=job.allocation.cpus_per_node[0], num_tasks=1,
            max_rss_kb=job.usage.max_rss_kb if job.usage else 0,
            user_cpu_usec=job.usage.user_cpu_usec if job.usage else 0,
            system_cpu_usec=job.usage.system_cpu_usec if job.usage else 0,
            max_rss_node=job.allocation.batch_host if job.usage else "", gpus=gpu_usage_info(job.usage),
        ))
    steps += info.steps
    if job.state in _LOGGED_AT_END:
        # Slurm logs such a run's end when the node fails or the requeue is asked, before the batch
        # script's status comes: sacct shows 0:0 for the job (the batch step, and scontrol show
        # job, the status).
        info.exit_code = info.exit_signal = 0
    return dbd_pb2.JobRecord(cluster=cluster, job=info, steps=steps,
                             alloc_cpus=job.allocation.total_cpus if job.allocation else 0)


def node_event_record(event: NodeEvent, cluster: str) -> dbd_pb2.NodeEventRecord:
    return dbd_pb2.NodeEventRecord(
        cluster=cluster, node=event.node, state=event.state, reason=event.reason, reason_uid=event.reason_uid,
        time=event.time, cpus=event.cpus, cluster_nodes=event.cluster_nodes)


_LOGGED_AT_END = frozenset({JobState.NODE_FAIL, JobState.REQUEUED})


def _batch_step_state(job: Job) -> str:
    # A job that timed out has a batch step that was cancelled (sacct shows CANCELLED, 0:15), and
    # so has one killed for a requeue or a node failure (a script that exited non-zero first:
    # FAILED; one whose end its failed node never reported: NODE_FAIL).
    if job.state is JobState.TIMEOUT:
        return "CANCELLED"
    if job.state in _LOGGED_AT_END and (job.exit_signal or job.exit_code or job.state is JobState.REQUEUED):
        return "CANCELLED" if job.exit_signal or not job.exit_code else "FAILED"
    return str(job.state)


def node_info(rec: NodeRecord, usage: NodeUsage, reserved: tuple[str, ...] = ()) -> ctld_pb2.NodeInfo:
    """`reserved`: RESERVED (and MAINTENANCE) while a reservation holds the node."""
    cfg = rec.config
    flags = list(reserved)
    if rec.drain:
        flags.append("DRAIN")
    if not (rec.registered and rec.responding):
        flags.append("NOT_RESPONDING")
    if rec.dynamic:
        flags.append("DYNAMIC_NORM")
    if rec.down:       # set DOWN (by an admin, or not heard from in SlurmdTimeout): down*, as Slurm
        base = "DOWN"
    elif not rec.registered:
        base = "UNKNOWN"
    elif usage.cpus == 0:
        base = "IDLE"
    elif usage.cpus >= cfg.cpus:
        base = "ALLOCATED"
    else:
        base = "MIXED"
    return ctld_pb2.NodeInfo(
        name=cfg.name, state=base, flags=flags, cpus=cfg.cpus, alloc_cpus=usage.cpus,
        real_memory_mb=cfg.real_memory_mb, alloc_memory_mb=usage.memory_mb,
        free_memory_mb=rec.free_memory_mb, gres=cfg.gres, address=rec.address or cfg.address,
        port=rec.port, reason=rec.reason, reason_uid=rec.reason_uid, reason_time=rec.reason_time,
        partitions=rec.partitions, boot_time=rec.boot_time, slurmd_start_time=rec.slurmd_start_time,
        arch=rec.arch, os=rec.os, cpu_load=rec.cpu_load, hostname=cfg.hostname,
        sockets=cfg.sockets, cores_per_socket=cfg.cores_per_socket,
        threads_per_core=cfg.threads_per_core, weight=cfg.weight, features=",".join(cfg.features),
        tmp_disk_mb=cfg.tmp_disk_mb, gres_used=format_gres_used(parse_gres(cfg.gres), usage.gpu_ids),
        owner_uid=usage.owner, comment=rec.comment, extra=rec.extra,
    )


def partition_info(part: PartitionConfig, nodes: dict[str, NodeRecord],
                   preempt_mode: ModeSpec = ModeSpec()) -> ctld_pb2.PartitionInfo:
    """`preempt_mode`: the global PreemptMode, shown for a partition without its own."""
    members = [nodes[n].config for n in part.nodes if n in nodes]
    return ctld_pb2.PartitionInfo(
        name=part.name, is_default=part.is_default, state=part.state,
        max_time_min=part.max_time_min, default_time_min=part.default_time_min or 0,
        nodes=list(part.nodes), node_expr=part.node_expr, total_cpus=sum(n.cpus for n in members),
        max_nodes=part.max_nodes or 0, min_nodes=part.min_nodes, priority_tier=part.priority_tier,
        priority_job_factor=part.priority_job_factor, over_subscribe=part.over_subscribe,
        def_mem_per_cpu=part.def_mem_per_cpu_mb or 0,
        total_memory_mb=sum(n.real_memory_mb for n in members),
        allow_accounts="ALL" if part.allow_accounts is None else ",".join(part.allow_accounts),
        deny_accounts=",".join(part.deny_accounts),
        allow_qos="ALL" if part.allow_qos is None else ",".join(part.allow_qos),
        deny_qos=",".join(part.deny_qos), qos=part.qos,
        preempt_mode=str(part.preempt_mode or preempt_mode), grace_time=part.grace_time,
        hidden=part.hidden,
    )


def priority_weights(settings: PrioritySettings) -> ctld_pb2.PriorityWeights:
    return ctld_pb2.PriorityWeights(
        age=settings.weight_age, assoc=settings.weight_assoc, fairshare=settings.weight_fairshare,
        job_size=settings.weight_job_size, partition=settings.weight_partition, qos=settings.weight_qos,
        tres=settings.weight_tres_text)


def priority_factors_info(factors: PriorityFactors, settings: PrioritySettings) -> ctld_pb2.PriorityFactorsInfo:
    weights = dict(settings.weight_tres)
    return ctld_pb2.PriorityFactorsInfo(
        job_id=factors.job_id, user_name=factors.user_name, partition=factors.partition,
        priority=factors.priority, age=factors.age, assoc=factors.assoc, fairshare=factors.fairshare,
        job_size=factors.job_size, partition_factor=factors.partition_factor, qos=factors.qos,
        tres=[ctld_pb2.TresFactor(name=name, factor=value, weight=weights.get(name, 0.0))
              for name, value in factors.tres],
        site=factors.site, nice=factors.nice, fixed=factors.fixed)


def share_info(row: ShareRow, tres_run_mins: str = "") -> ctld_pb2.ShareInfo:
    info = ctld_pb2.ShareInfo(
        account=row.account, user=row.user, partition=row.partition, depth=row.depth,
        norm_shares=row.norm_shares, raw_usage=row.raw_usage, norm_usage=row.norm_usage,
        effective_usage=row.effective_usage, tres_run_mins=tres_run_mins)
    if row.raw_shares is not None:
        info.raw_shares = row.raw_shares
    if row.fairshare is not None:
        info.fairshare = row.fairshare
    if row.level_fs is not None:
        info.level_fs = row.level_fs
    return info


def batch_end(msg: ctld_pb2.BatchCompletion, now: int) -> Event:
    """The event for a node's report that a batch script ended (CompleteBatch, or in NodeSteps)."""
    if msg.stepd_lost:
        return JobLost(JobId(msg.job_id), msg.node, msg.end_time or now)
    return BatchFinished(
        JobId(msg.job_id), msg.exit_code, msg.exit_signal, msg.out_of_memory, msg.launch_failed,
        msg.end_time or now, usage=step_usage(msg),
        kill_task_failed=msg.kill_task_failed, node=msg.node, epilog_failed=msg.epilog_failed)


def step_end(msg: ctld_pb2.StepCompletion, now: int) -> StepFinished:
    """The event for one node's part of an srun step ending (CompleteStep, or in NodeSteps)."""
    return StepFinished(
        JobId(msg.job_id), msg.step_id, msg.node, msg.exit_code, msg.exit_signal, msg.end_time or now,
        out_of_memory=msg.out_of_memory, launch_failed=msg.launch_failed, cancelled=msg.cancelled,
        usage=step_usage(msg, msg.node),
        kill_task_failed=msg.kill_task_failed, node_failed=msg.stepd_lost)


def node_step_ends(steps: ctld_pb2.NodeSteps, now: int) -> tuple[list[Event], list[ctld_pb2.NodeStep]]:
    """The events for the ends a node reports with its steps, and the keys to acknowledge."""
    events = [*(batch_end(m, now) for m in steps.batch_ends), *(step_end(m, now) for m in steps.step_ends)]
    keys = [*(ctld_pb2.NodeStep(job_id=m.job_id, step="batch") for m in steps.batch_ends),
            *(ctld_pb2.NodeStep(job_id=m.job_id, step=str(m.step_id)) for m in steps.step_ends)]
    return events, keys
