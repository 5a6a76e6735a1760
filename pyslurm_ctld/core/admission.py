"""Admission: the JobSubmitted event of a new job or array (sbatch, srun, salloc), or Slurm's
refusal (SlurmError). Partition, node lists, features, GPUs, accounting limits, MaxJobCount and
MaxArraySize are checked here; the partition and node checks are shared with `job_updates`.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Iterable, Sequence

from pyslurm_common.array_spec import ArraySpec, parse_array_spec
from pyslurm_common.conf_records import PartitionConfig
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.licenses import request_valid

from ..sched import features
from ..sched.association_checks import charge
from .dependency_checks import DependencyChecks
from ..model.events import JobSubmitted
from ..model.job import ArrayInfo, Hold, Job, JobId, JobRequest, Reason
from ..sched.limits import default_time_limit, submit_refusal
from ..sched.node_fit import Need, job_need, spread_node_count
from ..model.nodes import NodeRecord
from . import reservations
from .access import is_privileged
from .state import ClusterState

UNLIMITED = -1


def submission(state: ClusterState, raw: JobRequest, uid: int, gid: int, user_name: str, group_name: str,
               hold: bool, now: int, array: str = "", dependency: str = "") -> JobSubmitted:
    """The JobSubmitted event of a new job (or job array, for a non-empty `--array` spec)."""
    check_script_size(state, raw.script)
    array_spec = _array_spec(state, array) if array else None
    if raw.licenses and not request_valid(raw.licenses, dict(state.cfg.licenses)):
        raise SlurmError(Strerror.INVALID_LICENSES)
    depends = dependency_checks(state).parsed(dependency) if dependency else None
    if raw.reservation and not raw.partition:   # it runs in its reservation's partition, as in Slurm
        raw = dataclasses.replace(raw, partition=reservations.named(state, raw.reservation, now).partition)
    part = resolve_partition(state, raw.partition)
    time_limit = raw.time_limit_min
    if time_limit == 0:
        time_limit = part.default_time_min if part.default_time_min else part.max_time_min
    nodes_in_cluster = len(state.nodes)
    if raw.spread_job:   # --spread-job: the tasks over as many of the partition's usable nodes as there are
        usable = sum(1 for name in part.nodes if name in state.nodes and state.nodes[name].usable)
        raw = dataclasses.replace(raw, min_nodes=max(1, min(raw.num_tasks, usable)))
    # More nodes than the cluster has: Slurm (EnforcePartLimits=NO, its default) accepts it to pend
    # with PartitionNodeLimit; with the limits enforced it is refused.
    if raw.min_nodes > nodes_in_cluster and state.options.enforce_part_limits:
        raise SlurmError(Strerror.NODE_COUNT_INVALID)
    others = tuple(resolve_partition(state, name).name for name in raw.partitions)
    check_node_lists(state, raw, (part.name, *others))
    available = frozenset(f for p in (part.name, *others) for n in state.partitions[p].nodes
                          if n in state.nodes for f in state.nodes[n].config.features)
    features.validated(raw.features, available)
    features.batch_subset(raw.batch_features, raw.features, available)
    enforce = state.cfg.accounting_storage_enforce
    charged = charge(state.associations, enforce, user_name, raw.account, raw.qos,
                     [state.partitions[name] for name in others or (part.name,)])
    if raw.time_limit_min == 0:
        time_limit = default_time_limit(state.associations, enforce, charged.qos, charged.association, time_limit)
    request = _normalised_gpus(state, dataclasses.replace(raw, partition=part.name, time_limit_min=time_limit,
                                                        account=charged.account, qos=charged.qos,
                                                        partitions=others if len(others) > 1 else (),
                                                        min_nodes=max(raw.min_nodes, len(raw.required_nodes))),
                                    part)
    if request.reservation:
        reservations.check_access(state, request, user_name, now)
    need = need_in(state, request, (part,))
    # More CPUs than the partition has: Slurm (EnforcePartLimits=NO) accepts it to pend with
    # PartitionConfig; within them but on no node's configuration, it is refused.
    beyond_partition = all(request.total_cpus > partition_cpus(state, state.partitions[name])
                           for name in others or (part.name,))
    if not beyond_partition:
        check_some_node_holds(need, state.nodes.values())
    check_scheduling_options(state, request, part)
    new_jobs = len(array_spec.indices) if array_spec else 1
    if _active_job_count(state) + new_jobs > state.cfg.max_job_count:
        raise SlurmError(Strerror.TOO_MANY_JOBS)
    submit_refusal(state.associations, enforce, state.jobs.values(), user_name, charged.association, request,
                   need.tres, new_jobs)
    job_id = JobId(state.new_job_id())
    job = Job(
        job_id=job_id, request=request, uid=uid, gid=gid, user_name=user_name,
        group_name=group_name, submit_time=now, hold=Hold.USER if hold else Hold.NONE,
        reason=Reason.HELD_USER if hold else Reason.PARTITION_CONFIG if beyond_partition else Reason.NONE,
        eligible_time=0 if hold else max(now, request.begin_time),
        array=_array_info(job_id, array_spec.indices, array_spec.throttle) if array_spec else None,
        dependency=depends, admin_priority=request.priority if is_privileged(state, uid) else 0,
    )
    return JobSubmitted(dataclasses.replace(job, priority=state.priority_of(job, now)))


def need_in(state: ClusterState, req: JobRequest, parts: Sequence[PartitionConfig]) -> Need:
    """What one node of the request needs in these partitions (the first one's memory default);
    -n without -N over the fewest of their nodes that hold the tasks, as the scheduler places it."""
    node_cpus = [state.nodes[name].config.cpus for p in parts for name in p.nodes if name in state.nodes]
    return job_need(req, def_mem_per_cpu(state, parts[0]), nodes=spread_node_count(req, node_cpus))


def partition_cpus(state: ClusterState, part: PartitionConfig) -> int:
    """The CPUs of the partition's nodes, as configured (Slurm's partition TotalCPUs)."""
    return sum(state.nodes[name].config.cpus for name in part.nodes if name in state.nodes)


def check_some_node_holds(need: Need, nodes: Iterable[NodeRecord]) -> None:
    """BAD_NODE_CONFIG unless one of `nodes`, as configured, has the CPUs, memory, temporary disk
    and features one node of the request needs; with the first of them that the last node
    lacks, in Slurm's words (node_scheduler.c's _set_err_msg, which sbatch and srun print)."""
    shortfall = ""
    for n in nodes:
        cfg = n.config
        if cfg.cpus < need.cpus_per_node:
            shortfall = "CPU count per node can not be satisfied"
        elif cfg.real_memory_mb < need.memory_mb_per_node:
            shortfall = "Memory specification can not be satisfied"
        elif cfg.tmp_disk_mb < need.tmp_disk_mb:
            shortfall = "Temporary disk specification can not be satisfied"
        elif not features.satisfied(need.constraint, frozenset(cfg.features)):
            shortfall = ""
        else:
            return
    raise SlurmError(Strerror.BAD_NODE_CONFIG, shortfall)


def check_script_size(state: ClusterState, script: str) -> None:
    """SchedulerParameters=max_script_size (4 MB by default), in bytes as slurmctld's strlen()."""
    limit = state.options.max_script_size
    if len(script) > limit or (len(script) * 4 > limit and len(script.encode()) > limit):
        raise SlurmError(Strerror.PATHNAME_TOO_LONG)


def check_scheduling_options(state: ClusterState, req: JobRequest, part: PartitionConfig) -> None:
    """--time-min within the time limit; -B/--sockets-per-node/--cores-per-socket/--threads-per-core
    met by some node of the partition; --prefer well formed and naming known features (each in
    Slurm's words)."""
    if req.time_min_min and req.time_limit_min != UNLIMITED and req.time_min_min > req.time_limit_min:
        raise SlurmError(Strerror.INVALID_TIME_MIN)
    sockets, cores = req.sockets_per_node, req.cores_per_socket
    records = [state.nodes[n] for n in part.nodes if n in state.nodes]
    if (sockets or cores or req.threads_per_core) and not any(
            r.config.sockets >= sockets and r.config.cores_per_socket >= cores
            and r.config.threads_per_core >= req.threads_per_core for r in records):
        raise SlurmError(Strerror.BAD_NODE_CONFIG, "Socket, core and/or thread specification can not be satisfied")
    if req.prefer:
        try:
            features.validated(req.prefer, frozenset(f for r in records for f in r.config.features))
        except SlurmError:
            raise SlurmError(Strerror.INVALID_PREFER) from None


def check_node_lists(state: ClusterState, req: JobRequest, partitions: tuple[str, ...]) -> None:
    """-w/-x name known nodes; the -w ones must all be in one of the job's partitions, and -x must
    leave one some node."""
    for name in (*req.required_nodes, *req.excluded_nodes):
        if name not in state.nodes:
            raise SlurmError(Strerror.INVALID_NODE_NAME)
    if req.required_nodes and not any(set(req.required_nodes) <= set(state.partitions[p].nodes)
                                      for p in partitions):
        raise SlurmError(Strerror.BAD_NODE_CONFIG)
    if set(req.required_nodes) & set(req.excluded_nodes):
        raise SlurmError(Strerror.BAD_NODE_CONFIG)
    # -x of every node the job's partitions have: nowhere to run (Slurm 22.05.8 refuses it so).
    if req.excluded_nodes and all(set(state.partitions[p].nodes) <= set(req.excluded_nodes) for p in partitions):
        raise SlurmError(Strerror.BAD_NODE_CONFIG)


def dependency_checks(state: ClusterState) -> DependencyChecks:
    return DependencyChecks(state.jobs, state.array_tasks, state.options.kill_invalid_depend)


def _array_spec(state: ClusterState, text: str) -> ArraySpec:
    """`--array` checked against MaxArraySize (indices 0..MaxArraySize-1) and max_array_tasks."""
    try:
        spec = parse_array_spec(text)
    except ValueError:
        raise SlurmError(Strerror.INVALID_ARRAY) from None
    if spec.indices[-1] >= state.cfg.max_array_size or len(spec.indices) > state.options.max_array_tasks:
        raise SlurmError(Strerror.INVALID_ARRAY)
    return spec


def _active_job_count(state: ClusterState) -> int:
    """Jobs counted against MaxJobCount: each pending array task counts as one (job_table.py)."""
    return state.jobs.active_count


def _normalised_gpus(state: ClusterState, req: JobRequest, part: PartitionConfig) -> JobRequest:
    """Every GPU option as GPUs per node, checked against the partition's nodes.

    --gres=gpu[:type]:N and --gpus-per-node=N are per node already; --gpus=N is spread
    over the job's nodes, rounding up (Slurm may place it unevenly; we keep every node the
    same); --gpus-per-task=N is N times the tasks of the busiest node. Combining options,
    or asking for more GPUs (of the type) than any node of the partition has, is refused.
    """
    if sum(1 for given in (req.gpus, req.gpus_per_task, req.gpus_per_node) if given) > 1:
        raise SlurmError(Strerror.INVALID_GRES)
    nodes = max(1, req.min_nodes)
    if req.gpus:
        per_node = math.ceil(req.gpus / nodes)
    elif req.gpus_per_task:
        tasks = max(req.num_tasks, nodes) if req.ntasks_given else nodes
        per_node = req.gpus_per_task * math.ceil(tasks / nodes)
    else:
        per_node = req.gpus_per_node
    if per_node == 0:
        return dataclasses.replace(req, gpus_per_node=0, gpu_type="")
    most = max((sum(1 for kind in state.gpu_types.get(n, {}).values() if not req.gpu_type or kind == req.gpu_type)
                for n in part.nodes), default=0)
    if per_node > most:
        raise SlurmError(Strerror.INVALID_GRES)
    return dataclasses.replace(req, gpus_per_node=per_node)


def resolve_partition(state: ClusterState, name: str) -> PartitionConfig:
    if not name:
        default = next((p for p in state.partitions.values() if p.is_default), None)
        if default is None:
            raise SlurmError(Strerror.NO_DEFAULT_PARTITION)
        part = default
    else:
        if name not in state.partitions:
            raise SlurmError(Strerror.INVALID_PARTITION, f"invalid partition specified: {name}")
        part = state.partitions[name]
    if part.state in ("DRAIN", "INACTIVE"):
        raise SlurmError(Strerror.PARTITION_NOT_AVAIL)
    return part


def def_mem_per_cpu(state: ClusterState, part: PartitionConfig | None) -> int:
    if part is not None and part.def_mem_per_cpu_mb is not None:
        return part.def_mem_per_cpu_mb
    return state.cfg.def_mem_per_cpu_mb or 0


def _array_info(job_id: JobId, indices: tuple[int, ...], throttle: int) -> ArrayInfo:
    """The master's array record at submission: every index pending."""
    steps = {b - a for a, b in zip(indices, indices[1:])}
    return ArrayInfo(array_job_id=job_id, task_id=None, pending=indices, throttle=throttle,
                     task_count=len(indices), task_min=indices[0], task_max=indices[-1],
                     task_step=steps.pop() if len(steps) == 1 else 1)
