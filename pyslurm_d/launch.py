"""What a stepd is asked to run (the launch request pyslurmd hands it) and its tasks.

Plain data shared by stepd and its exec shim (task_exec.py). Stdlib only.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Launch:
    job_id: int
    uid: int
    gid: int
    user_name: str
    node_name: str
    script_path: str                    # the batch script; "" for an srun step (argv[0] is run)
    argv: list[str]
    environment: list[str]
    work_dir: str
    std_out: str                        # batch: paths; srun step: patterns, "" = stream to srun
    std_err: str
    std_in: str
    append: bool
    umask: int
    kill_wait: int
    step: str = "batch"
    rlimits: list[str] = field(default_factory=list)
    unkillable_timeout: int = 60
    cgroup_backend: str = "hybrid"
    node_tag: str = ""
    cpu_ids: list[int] = field(default_factory=list)     # affinity (and cpuset when constrained)
    constrain_cpus: bool = False
    memory_bytes: int | None = None
    memory_swap_bytes: int | None = None
    denied_devices: list[str] = field(default_factory=list)  # device nodes the step may not open
    gather_frequency: int = 30          # JobAcctGatherFrequency (task=N): seconds between samples
    task_prolog: str = ""               # slurm.conf TaskProlog / TaskEpilog (task_scripts.py)
    task_epilog: str = ""
    # srun steps
    task_ids: list[int] = field(default_factory=lambda: [0])   # global ranks run here
    node_index: int = 0
    num_tasks: int = 1
    io_host: str = ""                   # srun's I/O listener; empty for the batch step
    io_port: int = 0
    io_key: str = ""
    pty: bool = False
    pty_rows: int = 0
    pty_cols: int = 0
    input_task: int = -1                # -1 all tasks, -2 none, else the rank that reads stdin
    kill_on_bad_exit: bool = False
    job_name: str = ""
    multi_prog: str = ""                # srun --multi-prog: the configuration text each task's argv comes from
    bcast_staged: str = ""              # srun --bcast into a directory: the copy's name before the step's

    @property
    def is_batch(self) -> bool:
        return self.step == "batch"

    @property
    def stepd_name(self) -> str:
        """How slurmstepd names itself in what it writes to the job's stderr (Slurm 22.05:
        `slurmstepd-node1: error: *** JOB 7 ON node1 CANCELLED AT ... ***`)."""
        return f"slurmstepd-{self.node_name}"


@dataclass(slots=True)
class Task:
    rank: int
    local_id: int
    pid: int = 0
    status: int | None = None
