"""Slurm 22.05 options through the real CLIs and daemons: what the job's environment, its steps
and scontrol show of them; refusals in Slurm's words."""
from __future__ import annotations

import os
import pwd

from .conftest import BIN, Cluster, wait_for


def test_array_task_steps_keep_the_task_variables_and_file_names(cluster: Cluster) -> None:
    script = ("#!/bin/sh\n#SBATCH --array=[3-4] --ntasks-per-node=1 -m cyclic\n"
              "srun -o step-%A_%a.out sh -c 'echo $SLURM_ARRAY_JOB_ID $SLURM_ARRAY_TASK_ID "
              "$SLURM_NTASKS_PER_NODE $SLURM_DISTRIBUTION'\n")
    job_id = int(cluster.run("sbatch", "--parsable", user="alice", input=script, check=True).stdout)
    work = cluster.work_dir("alice")
    for task in (3, 4):
        path = work / f"step-{job_id}_{task}.out"
        wait_for(lambda: path.exists() and path.read_text())
        assert path.read_text() == f"{job_id} {task} 1 cyclic\n"


def test_export_list_gives_no_pyslurm_conf_but_slurm_conf(cluster: Cluster) -> None:
    job_id = cluster.sbatch("--export=HOME", "--wrap", "env", user="alice")
    cluster.wait_state(job_id, "COMPLETED")
    names = {line.split("=", 1)[0] for line in
             (cluster.work_dir("alice") / f"slurm-{job_id}.out").read_text().splitlines()}
    assert "SLURM_CONF" in names and "HOME" in names and "PYSLURM_CONF" not in names


def test_get_user_env_and_export_none_start_from_the_login_environment(cluster: Cluster) -> None:
    # As Slurm's slurmd: the user's login variables (here SHELL and PATH from `runuser -l`), the
    # submitted ones on top; a submit-side variable that is not exported stays out.
    for args in (["--export=NONE"], ["--get-user-env", "--export=ALL"]):
        job_id = int(cluster.run("env", "FROM_SUBMIT=yes", "PATH=/submit/bin:/usr/bin:/bin", str(BIN / "sbatch"),
                                 "--parsable",
                                 *args, "--wrap", "echo $SHELL:$PATH:${FROM_SUBMIT:-unset}", user="alice",
                                 check=True).stdout)
        cluster.wait_state(job_id, "COMPLETED")
        shell, path, submitted = (cluster.work_dir("alice") / f"slurm-{job_id}.out").read_text().strip().split(":", 2)
        assert shell == pwd.getpwnam("alice").pw_shell, args
        if args[0] == "--export=NONE":
            assert not path.startswith("/submit/bin") and submitted.endswith("unset"), (path, submitted)
        else:
            assert path.startswith("/submit/bin") and submitted.endswith("yes"), (path, submitted)


def test_unknown_reservation_and_license_are_refused_as_slurm_refuses_them(cluster: Cluster) -> None:
    for option, reason in (("--reservation=maint", "Requested reservation is invalid"),
                           ("-L", "Invalid license specification")):
        args = [option, "matlab"] if option == "-L" else [option]
        result = cluster.run("sbatch", *args, "--wrap", "true", user="alice")
        assert (result.returncode, result.stderr) == (1, f"sbatch: error: Batch job submission failed: {reason}\n")


def test_layout_options_show_in_scontrol(cluster: Cluster) -> None:
    job_id = cluster.sbatch("--hold", "-n2", "--ntasks-per-node=2", "--ntasks-per-socket=1", "--hint=nomultithread",
                            "--tmp=0", "--comment=x", "--wrap", "true", user="alice")
    shown = cluster.run("scontrol", "show", "job", str(job_id), user="alice", check=True).stdout
    assert "ReqB:S:C:T=0:0:*:1\n" in shown and "NtasksPerN:B:S:C=2:0:1:* CoreSpec=*" in shown
    cluster.run("scancel", str(job_id), user="alice", check=True)


def test_clusters_option_names_this_cluster(cluster: Cluster) -> None:
    config = cluster.run("scontrol", "show", "config", check=True).stdout
    name = next(line.split("=", 1)[1].strip() for line in config.splitlines() if line.startswith("ClusterName"))
    result = cluster.run("sbatch", "-M", name.upper(), "--hold", "--wrap", "true", user="alice", check=True)
    job_id = int(result.stdout.split()[3])
    assert result.stdout == f"Submitted batch job {job_id} on cluster {name}\n"
    parsable = cluster.run("sbatch", "--parsable", "-M", f"{name},elsewhere", "--hold", "--wrap", "true",
                           user="alice", check=True)
    assert parsable.stdout == f"{job_id + 1};{name}\n"
    assert parsable.stderr == "sbatch: error: No cluster 'elsewhere' known by database.\n"
    refused = cluster.run("sbatch", "-M", "elsewhere", "--wrap", "true", user="alice")
    assert (refused.returncode, refused.stderr) == (1, "sbatch: error: No cluster 'elsewhere' known by database.\n"
                                                    "sbatch: error: 'elsewhere' can't be reached now, or it is an "
                                                    "invalid entry for --cluster.  Use 'sacctmgr list clusters' to "
                                                    "see available clusters.\n")
    cluster.run("scancel", str(job_id), str(job_id + 1), user="alice", check=True)


def test_srun_verbose_open_mode_and_cpu_bind(cluster: Cluster) -> None:
    work = cluster.work_dir("alice")
    (work / "log.txt").write_text("before\n")
    alice = pwd.getpwnam("alice")
    os.chown(work / "log.txt", alice.pw_uid, alice.pw_gid)
    result = cluster.run("srun", "-v", "-n1", "--cpu-bind=q", "--open-mode=append", "-o", "log.txt", "echo", "after",
                         user="alice", cwd=work)
    assert result.returncode == 0, result.stderr
    assert (work / "log.txt").read_text() == "before\nafter\n"
    lines = result.stderr.splitlines()
    assert lines[:2] == ["srun: defined options", "srun: -------------------- --------------------"]
    assert "srun: cpu-bind            : q" in lines and "srun: open-mode           : a" in lines
    assert any(line.startswith("srun: jobid ") and ": nodes(1):`node" in line for line in lines)
    assert any(line.startswith("srun: launching StepId=") and line.endswith(", 1 tasks: 0") for line in lines)
    truncated = cluster.run("srun", "-n1", "--open-mode=t", "-o", "log.txt", "echo", "only", user="alice", cwd=work)
    assert truncated.returncode == 0 and (work / "log.txt").read_text() == "only\n"


def test_sbatch_wait_exits_with_the_job_and_srun_exclusive_step(cluster: Cluster) -> None:
    result = cluster.run("sbatch", "-W", "--mincpus=1", "--propagate=NONE", "--wrap", "srun --exclusive -n1 true; exit 3",
                         user="alice")
    job_id = int(result.stdout.split()[3])
    assert (result.returncode, result.stdout) == (3, f"Submitted batch job {job_id}\n")
    assert cluster.job_field(job_id, "T") == "FAILED"


def test_a_step_asking_for_an_unknown_gres_is_refused(cluster: Cluster) -> None:
    job_id = cluster.sbatch("--wrap", "srun --gres=bogus:1 true; echo rc=$?", user="alice")
    cluster.wait_state(job_id, "COMPLETED")
    assert (cluster.work_dir("alice") / f"slurm-{job_id}.out").read_text() == (
        "srun: error: Invalid generic resource (gres) specification\nrc=1\n")


def test_immediate_gives_up_as_slurm_does(cluster: Cluster) -> None:
    blocker = cluster.sbatch("-N2", "-n4", "--wrap", "sleep 30", user="bob")
    cluster.wait_state(blocker, "RUNNING")
    try:
        now = cluster.run("srun", "--immediate", "true", user="alice")
        assert (now.returncode, now.stderr) == (1, "srun: error: Unable to allocate resources: Requested nodes are busy\n")
        later = cluster.run("salloc", "-I1", "true", user="alice")
        lines = later.stderr.splitlines()
        job_id = lines[0].split()[-1]
        assert (later.returncode, lines) == (1, [
            f"salloc: Pending job allocation {job_id}", f"salloc: job {job_id} queued and waiting for resources",
            "salloc: error: Unable to allocate resources: Connection timed out",
            f"salloc: Job allocation {job_id} has been revoked."])
    finally:
        cluster.run("scancel", str(blocker), user="bob")
        cluster.wait_state(blocker, "CANCELLED")


def test_cyclic_distribution_places_ranks_in_turn(cluster: Cluster) -> None:
    result = cluster.run("srun", "-N2", "-n4", "-m", "cyclic", "-l", "sh", "-c", "echo $SLURMD_NODENAME $SLURM_PROCID",
                         user="alice", check=True)
    placed = sorted(line.split(": ", 1)[1] for line in result.stdout.splitlines())
    assert placed == ["node1 0", "node1 2", "node2 1", "node2 3"]
    block = cluster.run("srun", "-N2", "-n4", "-l", "sh", "-c", "echo $SLURMD_NODENAME $SLURM_PROCID",
                        user="alice", check=True)
    assert sorted(line.split(": ", 1)[1] for line in block.stdout.splitlines()) == [
        "node1 0", "node1 1", "node2 2", "node2 3"]


def test_node_counts_against_the_node_list_reach_the_controller(cluster: Cluster) -> None:
    """-N as Slurm's option checks leave it (real Slurm 22.05's answers in tests/unit/test_job_options.py):
    `-N-3` is 1-3; a list longer than the srun's -N is cut, with Slurm's error line; -N under
    the list's count grows to it; sbatch refuses a list longer than its -N maximum."""
    ran = cluster.run("srun", "-N-3", "hostname", user="alice")
    assert (ran.returncode, len(ran.stdout.split())) == (0, 1), ran.stderr
    cut = cluster.run("srun", "-N1", "-w", "node1,node2", "printenv", "SLURMD_NODENAME", user="alice")
    assert (cut.returncode, cut.stdout.split()) == (0, ["node1"]), cut.stderr
    assert cut.stderr.startswith("srun: error: Required nodelist includes more nodes than permitted by max-node "
                                 "count (2 > 1). Eliminating nodes from the nodelist.\n")
    grown = cluster.sbatch("--hold", "-N1-2", "-w", "node[1-2]", "--wrap", "true", user="alice")
    assert cluster.job_field(grown, "D") == "2"
    refused = cluster.run("sbatch", "-N1", "-w", "node[1-2]", "--wrap", "true", user="alice")
    assert (refused.returncode, refused.stderr) == (1, "sbatch: error: invalid number of nodes (-N 2-1)\n")
    cluster.run("scancel", str(grown), check=True)


def test_pbs_directives_are_applied_as_slurms_sbatch_translates_them(cluster: Cluster) -> None:
    """#PBS lines act after the #SBATCH ones and under the command line; --ignore-pbs leaves them
    (the translation itself against real sbatch: tests/unit/test_sbatch_xlate.py)."""
    script = ("#!/bin/sh\n#SBATCH -J from_sbatch\n#PBS -N from_pbs\n#PBS -l nodes=2:ppn=1,walltime=00:05:00\n"
              "#PBS -W umask=027\ntrue\n")
    job = int(cluster.run("sbatch", "--parsable", "--hold", user="alice", input=script, check=True).stdout)
    assert [cluster.job_field(job, letter) for letter in "jlDC"] == ["from_pbs", "5:00", "2", "2"]
    over = int(cluster.run("sbatch", "--parsable", "--hold", "-t", "7", user="alice", input=script, check=True).stdout)
    assert cluster.job_field(over, "l") == "7:00"                     # the command line wins
    ignored = int(cluster.run("sbatch", "--parsable", "--hold", "--ignore-pbs", user="alice", input=script,
                              check=True).stdout)
    assert [cluster.job_field(ignored, letter) for letter in "jD"] == ["from_sbatch", "1"]
    cluster.run("scancel", str(job), str(over), str(ignored), check=True)
    ran = int(cluster.run("sbatch", "--parsable", "-o", "umask.out", user="alice", check=True,
                          input="#!/bin/sh\n#PBS -W umask=077\numask\n").stdout)
    cluster.wait_state(ran, "COMPLETED")
    assert (cluster.work_dir("alice") / "umask.out").read_text() == "0077\n"

def test_slurmd_debug_reaches_the_tasks_as_slurms_srun_passes_it(cluster: Cluster) -> None:
    """--slurmd-debug (accepted as Slurm 22.05's srun reads it: tests/unit/test_srun_options.py): the
    tasks see the level in SLURMD_DEBUG; above 4 it is cut to 4 with Slurm's line."""
    shown = cluster.run("srun", "--slurmd-debug=debug", "printenv", "SLURMD_DEBUG", user="alice")
    assert (shown.returncode, shown.stdout, shown.stderr) == (0, "4\n", "srun: Using srun's max debug increment of 4\n")
    quiet = cluster.run("srun", "--slurmd-debug=quiet", "sh", "-c", "echo ${SLURMD_DEBUG-unset}", user="alice")
    assert (quiet.returncode, quiet.stdout) == (0, "unset\n")
