"""Which of Slurm's options a command acts on; the rest are refused, never accepted and dropped.

Every option of Slurm 22.05 parses (cli/option_tables/). An option is in ACTED_ON once the
command carries it into the job or step as Slurm does; a few are IGNORED because Slurm itself
ignores them in a configuration like every pyslurm cluster's (no topology, power, profiling or
switch plugin). Anything else ends the command with an error before a job is made.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence

from .app import die
from .getopt_long import Row

# Options Slurm accepts and then has no effect with pyslurm's fixed plugin set.
IGNORED = frozenset({
    "switches",   # topology/none: no switches to count or wait for
    "profile",    # acct_gather_profile/none
    "power",      # no power management plugin
    "network",    # switch/none
    "wckey",      # TrackWCKey is not supported: Slurm without it drops the key too
    "gres_flags", "wait_all_nodes",   # checked by layout_options; no effect here, as in Slurm
    "cluster_constraint",   # federations only: Slurm outside one ignores it
    "delay_boot",           # only nodes a node_features plugin reboots are waited for; none here
    "use_min_nodes",        # pyslurm always allocates the minimum of a -N range already
    "bb", "bbf",            # no burst buffer plugin
    "mcs_label",            # MCSPlugin=mcs/none
    "context",              # no SELinux support
    "core_spec", "thread_spec",   # AllowSpecResourcesUsage=No: ignored with Slurm's error line (below)
})
# What each command handles itself before any option is looked at (getopt_long, command_line).
EARLY = frozenset({"help", "usage", "version"})
# The allocation options cli/job_options.py turns into a JobDesc for all three commands.
JOB_DESC = frozenset({
    "account", "begin", "kill_on_invalid_dep", "chdir", "constraint", "cpus_per_task", "dependency", "exclude", "export", "gres",
    "gpus", "gpus_per_node", "gpus_per_task", "hold", "job_name", "mem", "mem_per_cpu", "nice", "nodelist",
    "nodes", "ntasks", "ntasks_per_node", "partition", "qos", "signal", "time", "quiet",
    "comment", "mail_type", "mail_user",
    "uid", "gid", "reboot",   # refuse_for_users
    # cli/layout_options.py
    "reservation", "licenses", "mem_per_gpu", "cpus_per_gpu", "tmp", "overcommit", "ntasks_per_core",
    "ntasks_per_socket", "threads_per_core", "hint", "distribution", "gpu_bind", "ntasks_per_gpu", "mincpus",
    # cli/submit_inputs.py
    "propagate", "export_file", "nodefile",
    # cli/scheduling_options.py
    "time_min", "deadline", "priority", "contiguous", "extra_node_info", "sockets_per_node", "cores_per_socket",
    "cpu_freq", "acctg_freq", "no_kill", "prefer", "oversubscribe", "gpu_freq", "ntasks_per_tres",
    "spread_job",
    "mem_bind",   # job_options.mem_bind: exported to the job (sbatch, salloc), bound per task by srun
})


def refuse_for_users(prog: str, values: Mapping[str, object]) -> None:
    """What Slurm refuses to anyone but root (--uid, --gid, --reboot), in its words; root is told
    pyslurm does not reboot nodes. -S/--thread-spec: ignored as AllowSpecResourcesUsage=No has it."""
    import os

    root = os.getuid() == 0
    for dest in ("uid", "gid"):
        if values.get(dest) is not None and not root:
            die(f"--{dest} only permitted by root user", exit_code=255)
    if values.get("reboot"):
        failure = "Job submit/allocate failed" if prog == "salloc" else (
            "Unable to allocate resources" if prog == "srun" else "Batch job submission failed")
        if not root:
            die("rebooting of nodes is only allowed for admins", f"{failure}: Access/permission denied")
        die("--reboot is not supported by pyslurm")
    for dest, flag in (("core_spec", "-S"), ("thread_spec", "--thread-spec")):
        if values.get(dest) is not None:
            print(f"{prog}: error: Ignoring {flag} since it's not allowed by configuration "
                  "(AllowSpecResourcesUsage = No)", file=sys.stderr)


def run_as(values: Mapping[str, object]) -> dict[str, int]:
    """--uid/--gid (root's: refuse_for_users) as numbers, a name or a number each, else Slurm's
    `Invalid --uid specification`. Without --gid the job keeps the submitter's group, as Slurm's."""
    if values.get("uid") is None and values.get("gid") is None:
        return {}   # without grp and pwd: every submission comes through here
    import grp
    import pwd

    fields = {}
    for dest, field, lookup in (("uid", "run_as_uid", lambda n: pwd.getpwnam(n).pw_uid),
                                ("gid", "run_as_gid", lambda n: grp.getgrnam(n).gr_gid)):
        raw = values.get(dest)
        if raw is None:
            continue
        text = str(raw)
        try:
            fields[field] = int(text) if text.isdigit() and int(text) < 2 ** 32 - 2 else lookup(text)
        except KeyError:
            die(f"Invalid --{dest} specification", exit_code=255)
    return fields


def refuse_unsupported(prog: str, table: Sequence[Row], values: Mapping[str, object],
                       acted_on: Iterable[str]) -> None:
    if values.get("quiet") and values.get("verbose"):
        die("don't specify both --verbose (-v) and --quiet (-Q)")
    refuse_for_users(prog, values)
    handled = JOB_DESC | EARLY | IGNORED | frozenset(acted_on)
    for dest in values:
        if dest not in handled:
            name = next(row[0] for row in table if row[3] == dest)
            die(f"--{name} is not supported by pyslurm")
