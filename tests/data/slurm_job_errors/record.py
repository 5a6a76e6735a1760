"""Record how real Slurm 22.05 words refusals of job, node and partition requests
(scontrol update/requeue/hold/release/suspend/notify/top/show/create/delete/reconfigure, scancel):
stdout, stderr, exit status.

Run as root with the oracle cluster up (../shared/slurm-oracle/README.md) and its env.sh sourced:
    python3 tests/data/slurm_job_errors/record.py > tests/data/slurm_job_errors/refusals.json
Jobs: {held} is root's held job, {mine} the user's own held job, {done} a finished job of the user,
{running} root's running job with its step 0;
"user" is an ordinary user (benchuser here, alice in the tests). Ids (and the node and partition
names) in the outputs are written back as those placeholders, so the tests replay each case
against pyslurm with its own jobs.
"""
from __future__ import annotations

import json
import os
import subprocess
import time

USER = "benchuser"
UNKNOWN = "999999"
CASES = [
    ("update_unknown_job", "root", "scontrol update jobid=999999 TimeLimit=10"),
    ("update_job_word_unknown", "root", "scontrol update job 999999 TimeLimit=10"),
    ("update_other_users_job", "user", "scontrol update jobid={held} TimeLimit=10"),
    ("update_bad_partition", "root", "scontrol update jobid={held} Partition=nope"),
    ("update_finished_job", "user", "scontrol update jobid={done} TimeLimit=10"),
    ("update_raise_own_time_limit", "user", "scontrol update jobid={mine} TimeLimit=UNLIMITED"),
    ("update_unknown_field", "root", "scontrol update jobid={held} Bogus=1"),
    ("update_bad_time_limit", "root", "scontrol update jobid={held} TimeLimit=bogus"),
    ("requeue_unknown", "root", "scontrol requeue 999999"),
    ("requeue_pending", "root", "scontrol requeue {held}"),
    ("requeue_other_users_job", "user", "scontrol requeue {held}"),
    ("requeue_finished", "root", "scontrol requeue {done}"),
    ("requeuehold_unknown", "root", "scontrol requeuehold 999999"),
    ("hold_unknown", "root", "scontrol hold 999999"),
    ("release_unknown", "root", "scontrol release 999999"),
    ("uhold_unknown", "root", "scontrol uhold 999999"),
    ("release_other_users_job", "user", "scontrol release {held}"),
    ("suspend_unknown", "root", "scontrol suspend 999999"),
    ("resume_unknown", "root", "scontrol resume 999999"),
    ("show_unknown_job", "root", "scontrol show job 999999"),
    ("scancel_other_users_job", "user", "scancel {held}"),
    ("scancel_unknown", "root", "scancel 999999"),
    ("scancel_other_users_step", "user", "scancel {running}.0"),
    ("notify_unknown", "root", "scontrol notify 999999 hello"),
    ("notify_pending", "root", "scontrol notify {held} hello"),
    ("notify_other_users_job", "user", "scontrol notify {held} hello"),
    ("top_unknown", "root", "scontrol top 999999"),
    ("top_other_users_job", "user", "scontrol top {held}"),
    ("update_unknown_node", "root", "scontrol update nodename=nosuchnode State=RESUME"),
    ("update_node_as_user", "user", "scontrol update nodename={node} State=RESUME"),
    ("update_unknown_partition", "root", "scontrol update partitionname=nosuchpart State=DOWN"),
    ("update_partition_as_user", "user", "scontrol update partitionname={partition} State=DOWN"),
    ("create_partition_as_user", "user", "scontrol create partition=mine nodes={node}"),
    ("delete_partition_as_user", "user", "scontrol delete PartitionName={partition}"),
    ("delete_unknown_partition", "root", "scontrol delete partitionname=nosuchpart"),
    ("create_node_as_user", "user", "scontrol create nodename=box9 cpus=1"),
    ("delete_node_as_user", "user", "scontrol delete NodeName={node}"),
    ("reconfigure_as_user", "user", "scontrol reconfigure"),
    ("suspend_unknown_as_user", "user", "scontrol suspend 999999"),
]


def run(actor: str, command: str) -> subprocess.CompletedProcess[str]:
    argv = ["su", USER, "-s", "/bin/sh", "-c", f"cd /tmp && {command}"] if actor == "user" else ["sh", "-c", command]
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, cwd="/tmp", env=os.environ)


def submit(actor: str, options: str) -> str:
    return run(actor, f"sbatch --parsable -o /dev/null {options}").stdout.strip()


def main() -> None:
    jobs = {"held": submit("root", "--hold --wrap 'sleep 60'"), "mine": submit("user", "--hold --wrap 'sleep 60'"),
            "done": submit("user", "--wrap true")}
    while run("root", f"squeue -h -j {jobs['done']}").stdout.strip():
        time.sleep(1)
    jobs["running"] = submit("root", "--wrap 'srun sleep 120'")   # after: the oracle's one node has one CPU
    while f"{jobs['running']}.0" not in run("root", f"squeue -h -s -j {jobs['running']} -o %i").stdout.split():
        time.sleep(1)
    names = {"node": "localhost", "partition": "debug"}
    records = []
    for name, actor, template in CASES:
        done = run(actor, template.format(**jobs, **names))
        text = {"stdout": done.stdout, "stderr": done.stderr}
        for key, value in {**jobs, **names}.items():
            text = {stream: out.replace(value, "{" + key + "}") for stream, out in text.items()}
        records.append({"name": name, "actor": actor, "command": template, **text, "exit": done.returncode})
    # all of them: requeue_finished requeued the finished one
    run("root", f"scancel {jobs['held']} {jobs['mine']} {jobs['done']} {jobs['running']}")
    print(json.dumps(records, indent=1))


if __name__ == "__main__":
    main()
