"""``scontrol show job|step|node|partition|config`` text, multi-line and ``-o`` one-liner.

Owns spec §3.2–3.5 of cli-squeue-sinfo-scontrol-scancel.md (Slurm 22.05 layout). A record
is a list of ``Key=Value`` lines; multi-line output joins them with ``"\\n   "``, the
one-liner with single spaces. Job records end with an extra ``"   "`` line and a blank line
(``...Power=\\n   \\n\\n``), node and partition records with a blank line.

Values our records do not carry are printed as the constant Slurm prints for a job/node
without that feature (``MCS_label=N/A``, ``Reboot=0`` ...).
``AllocNode:Sid`` prints session id ``0`` (not tracked).

Pure except :func:`pyslurm_common.users.user_name` used for a node's ``Reason=`` user.
No errors are raised.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from cli import job_states
from pyslurm_common import hostlist, units
from pyslurm_common.rpc import messages as pb
from pyslurm_common.users import user_name as user_name_of_uid

# Names for annotations only: building a message class at import would load protobuf's
# well_known_types before cli/app.run_as_process can spare a command it (rpc/messages.py).
TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    JobInfo = pb.JobInfo
    StepInfo = pb.StepInfo
    NodeInfo = pb.NodeInfo
    PartitionInfo = pb.PartitionInfo

LINE_SEP = "\n   "
# Order in which scontrol joins node state flags after the base state.
NODE_FLAG_ORDER = (
    "CLOUD", "COMPLETING", "DRAIN", "DYNAMIC_FUTURE", "DYNAMIC_NORM", "INVALID_REG",
    "FAIL", "MAINTENANCE", "POWER_DOWN", "POWER_UP", "PERFCTRS", "POWERED_DOWN",
    "REBOOT_REQUESTED", "REBOOT_ISSUED", "RESERVED", "RESUME", "NOT_RESPONDING",
    "PLANNED", "POWERING_UP", "POWERING_DOWN",
)  # fmt: skip


def _ts(epoch: int, unknown: str = "Unknown") -> str:
    return units.format_timestamp(epoch, unknown=unknown)


def _or(value: str, default: str = "(null)") -> str:
    return value if value else default


def _record(lines: Sequence[str], oneliner: bool, trailer: bool) -> str:
    """Join *lines*; *trailer* adds the job record's closing separator."""
    sep = " " if oneliner else LINE_SEP
    text = sep.join(lines) + (sep if trailer else "")
    return text + ("\n" if oneliner else "\n\n")


# ----------------------------------------------------------------------------- jobs


def job_tres(job: JobInfo) -> str:
    """``cpu=N,mem=<size>,node=N,billing=N`` (scontrol's id order; mem omitted when 0)."""
    if job.mem_per_cpu_mb:
        mem = job.mem_per_cpu_mb * job.num_cpus
    else:
        mem = job.mem_per_node_mb * max(1, job.num_nodes)
    items = [f"cpu={job.num_cpus}"]
    if mem:
        items.append(f"mem={units.format_memory_mb(mem)}")
    items += [f"node={job.num_nodes}", f"billing={job.num_cpus}"]
    return ",".join(items)


def _job_start(job: JobInfo) -> int:
    """Start time, or for a pending job the start backfill expects (0 = Unknown)."""
    return job.expected_start if job.state == "PENDING" else job.start_time


def _job_end(job: JobInfo) -> int:
    """End time, or the expected end of an active job (or one backfill expects to start) with a
    limit (0 = Unknown)."""
    if job.state == "PENDING":
        return job.expected_start + job.time_limit_min * 60 if job.expected_start and job.time_limit_min > 0 else 0
    active = job.state in ("RUNNING", "SUSPENDED") and not job.completing
    if active and job.time_limit_min > 0 and job.start_time:
        return job.start_time + job.suspended_secs + job.time_limit_min * 60   # moved on by each resume
    if active:
        return 0
    return job.end_time


def _min_memory(job: JobInfo) -> str:
    if job.mem_per_cpu_mb:
        return f"MinMemoryCPU={units.format_memory_mb(job.mem_per_cpu_mb)}"
    return f"MinMemoryNode={units.format_memory_mb(job.mem_per_node_mb)}"


def _array_ids(job: JobInfo) -> str:
    """``ArrayJobId=<a> ArrayTaskId=<idx|ranges> [ArrayTaskThrottle=<n>] `` of an array record."""
    if not job.array_job_id:
        return ""
    text = f"ArrayJobId={job.array_job_id} ArrayTaskId={job.array_task_str} "
    if job.array_remainder and job.array_throttle:
        text += f"ArrayTaskThrottle={job.array_throttle} "
    return text


def _cpu_freq_line(text: str) -> list[str]:
    """--cpu-freq's line, as 22.05 prints it: `CPU_min_freq=Low CPU_max_freq=High Governor=...`."""
    if not text:
        return []
    from .scheduling_options import cpu_freq

    words = zip(("CPU_min_freq", "CPU_max_freq", "Governor"), cpu_freq(text))
    return ["".join(f"{key}={value} " for key, value in words if value)]


def _allocation_detail(job: JobInfo) -> list[str]:
    """-d: the job's GRES and, per run of nodes granted the same CPU ids, memory and GPUs, one
    ``Nodes=... CPU_IDs=... Mem=... GRES=`` line (Slurm groups the nodes into one host list)."""
    if not job.node_names:
        return []
    runs: list[tuple[list[str], tuple[str, int, str]]] = []
    for i, name in enumerate(job.node_names):
        gpus = job.node_gpu_ids[i] if i < len(job.node_gpu_ids) else ""
        grant = (job.node_cpu_ids[i] if i < len(job.node_cpu_ids) else "",
                 job.node_memory_mb[i] if i < len(job.node_memory_mb) else 0,
                 f"gpu:{len(gpus.split(','))}(IDX:{gpus})" if gpus else "")
        if runs and runs[-1][1] == grant:
            runs[-1][0].append(name)
        else:
            runs.append(([name], grant))
    job_gres = f"gpu:{job.gpus}" if job.gpus else "(null)"
    return [f"JOB_GRES={job_gres}", *(f"  Nodes={hostlist.compress(names)} CPU_IDs={cpus} Mem={mem} GRES={gres}"
                                      for names, (cpus, mem, gres) in runs)]


NO_VAL = 4294967294   # %a of a job that is no array task, as Slurm prints it


def shown_io_path(job: pb.JobInfo, given: str) -> str:
    """-o/-e as scontrol show job prints them: Slurm 22.05's _fname_format (api/job_info.c) puts
    only %A, %a, %j, %u and %x into the pattern as given (%J, %N, %s ... stay as written, where
    the job's own files have them expanded); "" for a default, which the controller's path is."""
    if not given:
        return ""
    task = job.array_task_str if job.array_job_id and not job.array_remainder and job.array_task_str.isdigit() else ""
    path = given.replace("%A", str(job.array_job_id or job.job_id)).replace("%a", task or str(NO_VAL))
    return path.replace("%j", str(job.job_id)).replace("%u", job.user_name).replace("%x", job.name)


def job_lines(job: JobInfo, now: int, details: bool = False) -> list[str]:
    """The ``Key=Value`` lines of one job record (§3.2); `details` (-d) adds DerivedExitCode
    and the allocation node by node."""
    started = bool(job.start_time) and job.state != "PENDING"
    last_eval = job.start_time if started else job.submit_time
    default_out = f"{job.work_dir}/slurm-{job.job_id}.out"
    priority = 0 if job.held else job.priority
    lines = [
        f"JobId={job.job_id} {_array_ids(job)}JobName={job.name}",
        f"UserId={job.user_name or job.user_id}({job.user_id}) "
        f"GroupId={job.group_name or job.group_id}({job.group_id}) MCS_label=N/A",
        f"Priority={priority} Nice={job.nice} Account={job.account} QOS={job.qos}",
        f"JobState={job_states.display_state(job)} Reason={(job.reason or 'None').replace(' ', '_')} "
        f"Dependency={job.dependency or '(null)'}",
        f"Requeue={int(job.requeue)} Restarts={job.restarts} BatchFlag={0 if job.launcher else 1} Reboot=0 "
        f"ExitCode={job.exit_code}:{job.exit_signal}",
        *([f"DerivedExitCode={job_states.derived_exit_code(job.steps)}"] if details else []),
        f"RunTime={units.format_duration_hms(job_states.run_seconds(job, now))} "
        f"TimeLimit={units.format_time_limit_hms(job.time_limit_min or None)} "
        f"TimeMin={units.format_time_limit_hms(job.time_min) if job.time_min else 'N/A'}",
        f"SubmitTime={_ts(job.submit_time)} EligibleTime={_ts(job.eligible_time)}",
        f"AccrueTime={_ts(job.eligible_time)}",
        f"StartTime={_ts(_job_start(job))} EndTime={_ts(_job_end(job))} Deadline={_ts(job.deadline, 'N/A')}",
        f"SuspendTime={_ts(job.suspend_time, 'None')} SecsPreSuspend={job_states.pre_suspend_seconds(job)} "
        f"LastSchedEval={_ts(last_eval)} Scheduler=Main",
        f"Partition={job.partition} AllocNode:Sid={job.submit_host or 'localhost'}:0",
        f"ReqNodeList={job.req_nodes or '(null)'} ExcNodeList={job.exc_nodes or '(null)'}",
        f"NodeList={job.nodes}" + (f" SchedNodeList={job.sched_nodes}" if job.sched_nodes else ""),
    ]
    batch = [f"BatchFeatures={job.batch_features}"] if job.batch_features else []
    if job.batch_host:
        batch.append(f"BatchHost={job.batch_host}")
    if batch:
        lines.append(" ".join(batch))
    lines += [
        f"NumNodes={job.num_nodes} NumCPUs={job.num_cpus} "
        f"NumTasks={job.num_tasks or 'N/A'} CPUs/Task={job.cpus_per_task or 'N/A'} "
        f"ReqB:S:C:T=0:0:{job.cores_per_socket or '*'}:{job.threads_per_core or '*'}",
        f"TRES={job_tres(job)}",
        f"Socks/Node={job.sockets_per_node or '*'} NtasksPerN:B:S:C={job.ntasks_per_node}:0:{job.ntasks_per_socket or '*'}:"
        f"{job.ntasks_per_core or '*'} CoreSpec=*",
        *(_allocation_detail(job) if details else []),
        f"MinCPUsNode={max(job.cpus_per_task or 1, job.min_cpus_per_node)} {_min_memory(job)} "
        f"MinTmpDiskNode={units.format_memory_mb(job.tmp_disk_mb) if job.tmp_disk_mb else 0}",
        f"Features={job.features or '(null)'} DelayBoot=00:00:00",
        *([f"Reservation={job.reservation}"] if job.reservation else []),
        f"OverSubscribe={job.over_subscribe or ('NO' if job.exclusive else 'OK')} Contiguous={int(job.contiguous)} "
        f"Licenses={job.licenses or '(null)'} Network=(null)",
        f"Command={_or(job.command)}",
        f"WorkDir={job.work_dir}",
        *([f"Comment={job.comment} "] if job.comment else []),
        f"StdErr={shown_io_path(job, job.std_err_given or job.std_out_given) or job.std_err or default_out}",
        f"StdIn={job.std_in or '/dev/null'}",
        f"StdOut={shown_io_path(job, job.std_out_given) or job.std_out or default_out}",
        *_cpu_freq_line(job.cpu_freq),
        "Power=",
    ]
    if job.tres_per_node:  # 22.05 prints the optional TRES lines after Power=
        lines.append(f"TresPerNode={job.tres_per_node}")
    if job.mail_type and job.mail_user:
        lines.append(f"MailUser={job.mail_user} MailType={job.mail_type}")
    return lines


def show_job(job: JobInfo, now: int, *, oneliner: bool = False, details: bool = False) -> str:
    """One job record including its trailing separator and blank line."""
    return _record(job_lines(job, now, details), oneliner, trailer=True)


def show_jobs(jobs: Iterable[JobInfo], now: int, *, oneliner: bool = False, details: bool = False) -> str:
    """``scontrol show job``: all records concatenated."""
    return "".join(show_job(j, now, oneliner=oneliner, details=details) for j in jobs)


# ----------------------------------------------------------------------------- steps


def step_lines(step: StepInfo) -> list[str]:
    """22.05's step record. The srun host and pid are not tracked, so ``SrunHost:Pid`` is left out;
    TRES lists the CPUs and nodes the step holds."""
    num_nodes = len(hostlist.expand(step.nodes)) if step.nodes else 0
    limit = units.format_time_limit_hms(step.time_limit_min if step.time_limit_min else None)
    return [
        f"StepId={step.job_id}.{step.step_id} UserId={step.user_id} StartTime={_ts(step.start_time)} "
        f"TimeLimit={limit}",
        f"State={step.state} Partition={step.partition} NodeList={step.nodes}",
        f"Nodes={num_nodes} CPUs={step.num_cpus} Tasks={step.num_tasks} Name={step.name} Network=(null)",
        f"TRES=cpu={step.num_cpus},node={num_nodes}",
        "ResvPorts=(null)",
        "CPUFreqReq=Default Dist=Block",
    ]


def show_steps(steps: Iterable[StepInfo], *, oneliner: bool = False) -> str:
    """``scontrol show step``: one record per step, each followed by a blank line."""
    return "".join(_record(step_lines(s), oneliner, trailer=False) for s in steps)


# ----------------------------------------------------------------------------- nodes


def node_state(node: NodeInfo) -> str:
    """``BASE[+FLAG...]``, e.g. ``IDLE+DRAIN``, ``DOWN+NOT_RESPONDING``."""
    flags = [f.upper() for f in node.flags]
    rank = {f: i for i, f in enumerate(NODE_FLAG_ORDER)}
    ordered = sorted(dict.fromkeys(flags), key=lambda f: rank.get(f, len(rank)))
    return "+".join([(node.state or "UNKNOWN").upper(), *ordered])


def _gres_tres(gres: str) -> list[str]:
    """``gpu:2`` / ``gpu:a100:2`` -> ``["gres/gpu=2"]`` (unparsable items dropped)."""
    items: list[str] = []
    for part in filter(None, gres.split(",")):
        fields = part.split(":")
        count = fields[-1].split("(")[0] if len(fields) > 1 else "1"
        if count.isdigit():
            items.append(f"gres/{fields[0]}={count}")
    return items


def node_lines(node: NodeInfo, user_name: Callable[[int], str] = user_name_of_uid, details: bool = False) -> list[str]:
    """The ``Key=Value`` lines of one node record (§3.3); `details` (-d) adds GresDrain."""
    addr = f"NodeAddr={node.address or node.name} NodeHostName={node.hostname or node.name}"
    if node.port:
        addr += f" Port={node.port}"
    mem = units.format_memory_mb(node.real_memory_mb)
    cfg = [f"cpu={node.cpus}", f"mem={mem}", f"billing={node.cpus}"]
    alloc = [f"cpu={node.alloc_cpus}"] if node.alloc_cpus else []
    if node.alloc_memory_mb:
        alloc.append(f"mem={units.format_memory_mb(node.alloc_memory_mb)}")
    lines = [
        f"NodeName={node.name} Arch={node.arch} CoresPerSocket={node.cores_per_socket} ",
        f"CPUAlloc={node.alloc_cpus} CPUEfctv={node.cpus} CPUTot={node.cpus} "
        f"CPULoad={node.cpu_load:.2f}",
        f"AvailableFeatures={_or(node.features)}",
        f"ActiveFeatures={_or(node.features)}",
        f"Gres={_or(node.gres)}",
        *(["GresDrain=N/A"] if details else []),
        *([f"GresUsed={node.gres_used}"] if node.gres else []),
        f"{addr} Version={node.version}",
        f"OS={node.os} ",
        f"RealMemory={node.real_memory_mb} AllocMem={node.alloc_memory_mb} "
        f"FreeMem={node.free_memory_mb} Sockets={node.sockets} Boards=1",
        f"State={node_state(node)} ThreadsPerCore={node.threads_per_core} "
        f"TmpDisk={node.tmp_disk_mb} Weight={node.weight} "
        f"Owner={f'{user_name(node.owner_uid)}({node.owner_uid})' if node.HasField('owner_uid') else 'N/A'} "
        "MCS_label=N/A",
    ]
    if node.partitions:
        lines.append(f"Partitions={','.join(node.partitions)} ")
    lines += [
        f"BootTime={_ts(node.boot_time, 'None')} "
        f"SlurmdStartTime={_ts(node.slurmd_start_time, 'None')}",
        f"LastBusyTime={_ts(node.last_busy_time)}",
        f"CfgTRES={','.join(cfg + _gres_tres(node.gres))}",
        f"AllocTRES={','.join(alloc)}",
        "CapWatts=n/a",
        "CurrentWatts=0 AveWatts=0",
        "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s",
    ]
    if node.reason:
        lines.append(
            f"Reason={node.reason} [{user_name(node.reason_uid)}@{_ts(node.reason_time)}]"
        )
    return lines


def show_nodes(
    nodes: Iterable[NodeInfo], *, oneliner: bool = False,
    user_name: Callable[[int], str] = user_name_of_uid, details: bool = False,
) -> str:
    """``scontrol show node``: one record per node, each followed by a blank line."""
    return "".join(_record(node_lines(n, user_name, details), oneliner, False) for n in nodes)


# ----------------------------------------------------------------------------- partitions


def _limit_hms(minutes: int, unset: str) -> str:
    return unset if minutes == 0 else units.format_time_limit_hms(minutes)


def _access(what: str, allow: str, deny: str) -> str:
    """``AllowAccounts=...``, or ``DenyAccounts=...`` when only a deny list is set (§3.4)."""
    if allow in ("", "ALL") and deny:
        return f"Deny{what}={deny}"
    return f"Allow{what}={allow or 'ALL'}"


def partition_lines(part: PartitionInfo) -> list[str]:
    """The ``Key=Value`` lines of one partition record (§3.4)."""
    # Slurm prints the members, not Nodes= as written: Nodes=ALL or a NodeSet shows its nodes.
    names = list(part.nodes)
    nodes = hostlist.compress(names) or "(null)"
    def_mem = (f"DefMemPerCPU={part.def_mem_per_cpu}" if part.def_mem_per_cpu
               else "DefMemPerNode=UNLIMITED")
    tres = [f"cpu={part.total_cpus}"]
    if part.total_memory_mb:
        tres.append(f"mem={units.format_memory_mb(part.total_memory_mb)}")
    tres += [f"node={len(names)}", f"billing={part.total_cpus}"]
    return [
        f"PartitionName={part.name}",
        f"AllowGroups=ALL {_access('Accounts', part.allow_accounts, part.deny_accounts)} "
        f"{_access('Qos', part.allow_qos, part.deny_qos)}",
        f"AllocNodes=ALL Default={'YES' if part.is_default else 'NO'} QoS={part.qos or 'N/A'}",
        f"DefaultTime={_limit_hms(part.default_time_min, 'NONE')} DisableRootJobs=NO "
        f"ExclusiveUser=NO GraceTime={part.grace_time} Hidden={'YES' if part.hidden else 'NO'}",
        f"MaxNodes={part.max_nodes or 'UNLIMITED'} "
        f"MaxTime={_limit_hms(part.max_time_min, 'UNLIMITED')} "
        f"MinNodes={part.min_nodes} LLN=NO MaxCPUsPerNode=UNLIMITED",
        f"Nodes={nodes}",
        f"PriorityJobFactor={part.priority_job_factor} PriorityTier={part.priority_tier} "
        f"RootOnly=NO ReqResv=NO OverSubscribe={part.over_subscribe or 'NO'}",
        f"OverTimeLimit=NONE PreemptMode={part.preempt_mode or 'OFF'}",
        f"State={part.state or 'UP'} TotalCPUs={part.total_cpus} TotalNodes={len(names)} "
        "SelectTypeParameters=NONE",
        "JobDefaults=(null)",
        f"{def_mem} MaxMemPerNode=UNLIMITED",
        f"TRES={','.join(tres)}",
    ]


def show_partitions(parts: Iterable[PartitionInfo], *, oneliner: bool = False) -> str:
    """``scontrol show partition``: one record per partition, each followed by a blank line."""
    return "".join(_record(partition_lines(p), oneliner, False) for p in parts)


# ----------------------------------------------------------------------------- config


def show_config(entries: Iterable[tuple[str, str]], read_time: int,
                sections: Iterable[tuple[str, Iterable[tuple[str, str]]]] = ()) -> str:
    """``Configuration data as of <ts>`` then one ``%-23s = %s`` line per (key, value); each
    section (cgroup.conf, ...) after a blank line, under its ``<Title>:`` line."""
    lines = [f"Configuration data as of {_ts(read_time)}"]
    lines += ["%-23s = %s" % (key, value) for key, value in entries]
    for title, section in sections:
        lines += ["", f"{title}:", *("%-23s = %s" % (key, value) for key, value in section)]
    return "\n".join(lines) + "\n"


def show_licenses(licenses: Iterable[pb.LicenseInfo], name: str = "", *, oneliner: bool = False) -> str:
    """``scontrol show licenses [name]``: each license by name; Slurm's line when none is configured."""
    ordered = sorted(licenses, key=lambda lic: lic.name)
    if not ordered:
        return "No licenses configured in Slurm.\n"
    gap = " " if oneliner else "\n    "
    return "".join(f"LicenseName={lic.name}{gap}Total={lic.total} Used={lic.used} "
                   f"Free={lic.total - lic.used - lic.reserved} Reserved={lic.reserved} Remote=no\n"
                   for lic in ordered if not name or lic.name == name)
