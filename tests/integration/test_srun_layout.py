"""srun's steps laid out and ended as Slurm's, end to end on the shared two-node cluster (2 CPUs a
node): -O/--overcommit, requests no node could ever hold, the line srun prints when its step is
ended from outside, and a signal sent right after sbatch. What real Slurm 22.05.8 printed is
quoted with each test (the oracle: one 2-CPU node, KillWait=5)."""
from __future__ import annotations

import pwd
import signal
import subprocess

from .conftest import KILL_WAIT, Cluster, wait_for


def srun_in_background(cluster: Cluster, user: str, *args: str) -> subprocess.Popen[str]:
    pw = pwd.getpwnam(user)
    return subprocess.Popen(["srun", *args], env=dict(cluster.env, USER=user, HOME=pw.pw_dir),
                            cwd=cluster.work_dir(user), user=pw.pw_uid, group=pw.pw_gid,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_overcommit_runs_more_tasks_than_cpus(cluster: Cluster) -> None:
    # Slurm: `srun -N1 -n5 -O -l hostname` on a 2-CPU node ran 5 tasks (`cpu counts: 1(x1)`).
    result = cluster.run("srun", "-N1", "-n5", "-O", "-l", "printenv", "SLURM_PROCID", user="alice")
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.splitlines()) == [f"{rank}: {rank}" for rank in range(5)], result.stdout
    # in an allocation of one CPU: a step of three tasks only with -O
    refused = cluster.run("salloc", "-N1", "-n1", "srun", "-n3", "true", user="alice")
    assert refused.returncode != 0, refused.stderr
    taken = cluster.run("salloc", "-N1", "-n1", "srun", "-n3", "-O", "printenv", "SLURM_STEP_NUM_TASKS",
                        user="alice")
    assert (taken.returncode, taken.stdout) == (0, "3\n3\n3\n"), taken.stderr


def test_what_no_node_could_ever_hold_is_refused_at_once(cluster: Cluster) -> None:
    # Slurm: exit 1 and these two lines, at once (TmpDisk=0 there as here).
    result = cluster.run("srun", "--tmp=999999", "true", user="alice", timeout=30)
    assert (result.returncode, result.stderr) == (1, (
        "srun: error: Temporary disk specification can not be satisfied\n"
        "srun: error: Unable to allocate resources: Requested node configuration is not available\n"))
    batch = cluster.run("sbatch", "--mem=999999", "--wrap", "true", user="alice", timeout=30)
    assert (batch.returncode, batch.stderr) == (1, (
        "sbatch: error: Memory specification can not be satisfied\n"
        "sbatch: error: Batch job submission failed: Requested node configuration is not available\n"))


def test_a_step_ended_from_outside_says_how_long_srun_waits(cluster: Cluster) -> None:
    # Slurm (`srun sleep 100`, then `scancel <job>` and `scancel <job>.0`), KillWait=5:
    #   srun: Job step aborted: Waiting up to 7 seconds for job step to finish.
    for target in ("job", "step"):
        name = f"abort-{target}"
        srun = srun_in_background(cluster, "alice", "-J", name, "sleep", "100")
        job_id = str(wait_for(lambda: cluster.run("squeue", "-h", "-n", name, "-t", "R", "-o", "%i").stdout.strip()))
        wait_for(lambda: cluster.run("squeue", "-h", "-s", "-j", job_id, "-o", "%i").stdout.strip())
        cluster.run("scancel", job_id if target == "job" else f"{job_id}.0", check=True)
        _, err = srun.communicate(timeout=30)
        assert f"srun: Job step aborted: Waiting up to {KILL_WAIT + 2} seconds for job step to finish.\n" in err, err
        assert err.count("Job step aborted") == 1, err


def test_a_signal_right_after_sbatch_reaches_the_step(cluster: Cluster) -> None:
    # Slurm: `j=$(sbatch --parsable --wrap "srun ..."); scancel -v --signal=USR1 $j` printed
    #   scancel: Signal 10 to job <j>
    #   scancel: Job is in transitional state, retrying
    # (the job was pending), and the signal reached the step five seconds later.
    work = cluster.work_dir("bob")
    (work / "trap.sh").write_text(
        "#!/bin/bash\nsrun sh -c 'trap \"echo got USR1; exit 0\" USR1; while :; do sleep 0.2; done'\n")
    job_id = cluster.sbatch("-t", "2", "-o", "trap-%j.out", "trap.sh", user="bob")
    result = cluster.run("scancel", "-v", "--signal=USR1", str(job_id), user="bob", timeout=90)
    assert result.returncode == 0, result.stderr
    assert f"scancel: Signal 10 to job {job_id}\n" in result.stderr
    assert "scancel: Job is in transitional state, retrying\n" in result.stderr
    cluster.wait_state(job_id, "COMPLETED", timeout=60)
    out = work / f"trap-{job_id}.out"
    assert "got USR1\n" in out.read_text()   # after the shell's note that its `sleep` died of it


def test_wait_ends_the_other_tasks_as_slurms_srun_does(cluster: Cluster) -> None:
    # Slurm: `srun -n4 -N1 -O -W2 ./w.sh` (rank 1 exits at once, the others sleep 20), exit 137:
    #   srun: First task exited 2s ago
    #   srun: StepId=78.0 tasks 0,2-3: running
    #   srun: StepId=78.0 task 1: exited
    #   srun: launch/slurm: _step_signal: Terminating StepId=78.0
    #   slurmstepd-localhost: error: *** STEP 78.0 ON localhost CANCELLED AT ... ***
    #   srun: Job step aborted: Waiting up to 7 seconds for job step to finish.
    #   srun: error: localhost: tasks 0,2-3: Killed
    result = cluster.run("srun", "-n4", "-N1", "-O", "-W2", "sh", "-c",
                         '[ "$SLURM_PROCID" = 1 ] && exit; sleep 20', user="alice", timeout=60)
    lines = [line for line in result.stderr.splitlines() if not line.startswith("slurmstepd-")]
    step = lines[1].split()[1] if len(lines) > 1 else ""
    host = lines[-1].split()[2] if lines else ""   # whichever node took the step
    assert result.returncode == 137 and lines == [
        "srun: First task exited 2s ago", f"srun: {step} tasks 0,2-3: running", f"srun: {step} task 1: exited",
        f"srun: launch/slurm: _step_signal: Terminating {step}",
        f"srun: Job step aborted: Waiting up to {KILL_WAIT + 2} seconds for job step to finish.",
        f"srun: error: {host} tasks 0,2-3: Killed"], result.stderr


def test_quit_on_interrupt_kills_the_tasks_at_once(cluster: Cluster) -> None:
    # Slurm (`srun -N1 --unbuffered --quit-on-interrupt` of a script ignoring SIGINT, one SIGINT):
    #   srun: sending Ctrl-C to StepId=79.0 / srun: forcing job termination /
    #   srun: Job step aborted: Waiting up to 7 seconds ..., and exit 137 (SIGKILL)
    srun = srun_in_background(cluster, "bob", "-N1", "--unbuffered", "--quit-on-interrupt", "sh", "-c",
                              "trap '' INT; echo WAITING; sleep 100")
    assert srun.stdout is not None and srun.stdout.readline() == "WAITING\n"
    srun.send_signal(signal.SIGINT)
    _, err = srun.communicate(timeout=30)
    assert srun.returncode == 137, err
    assert "srun: forcing job termination\n" in err and ": task 0: Killed\n" in err, err
    assert err.startswith("srun: sending Ctrl-C to StepId="), err


def test_a_node_range_lays_the_step_on_as_few_nodes_as_hold_it(cluster: Cluster) -> None:
    # Slurm: `srun -N-3` is the range 1-3; in a 2x2-CPU job -N1-2 -n3 needs both nodes, -n2 one.
    both = cluster.run("salloc", "-N2", "-n4", "srun", "-N1-2", "-n3", "-l", "printenv", "SLURMD_NODENAME",
                       user="alice")
    assert sorted(both.stdout.splitlines()) == ["0: node1", "1: node1", "2: node2"], both.stderr
    one = cluster.run("salloc", "-N2", "-n4", "srun", "-N-3", "-n2", "printenv", "SLURMD_NODENAME", user="alice")
    assert one.stdout == "node1\nnode1\n", one.stderr
    # SchedMD's test_116_1: four overcommitted tasks each starting a step of four more
    nested = cluster.run("srun", "-N-3", "-n4", "-O", "-t1", "--overlap", "srun", "-l", "-n4", "-O", "--overlap",
                         "id", "-u", user="alice", timeout=90)
    assert nested.returncode == 0 and len(nested.stdout.splitlines()) == 16, nested.stderr
