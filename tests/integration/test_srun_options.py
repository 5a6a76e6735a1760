"""srun options that shape how a step is launched, end to end on the shared two-node cluster:
--multi-prog (each rank's program from a configuration file)."""
from __future__ import annotations

from .conftest import Cluster

MULTI_PROG = """# a coupled model: one coordinator, workers, a reader for the rest
0        sh -c 'echo coordinator $(id -un) on $SLURM_NODEID "$@"' sh
1-2      echo worker rank:%t offset:%o
*        echo rest %t
"""


def test_multi_prog_runs_each_ranks_own_program(cluster: Cluster) -> None:
    work = cluster.work_dir("alice")
    (work / "model.conf").write_text(MULTI_PROG)
    result = cluster.run("srun", "-N2", "-n4", "-l", "--multi-prog", "model.conf", "tail-arg", user="alice")
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.splitlines()) == [
        "0: coordinator alice on 0 tail-arg", "1: worker rank:1 offset:0 tail-arg",
        "2: worker rank:2 offset:1 tail-arg", "3: rest 3 tail-arg"], result.stdout


def test_multi_prog_ranks_give_the_task_count(cluster: Cluster) -> None:
    work = cluster.work_dir("bob")
    (work / "two.conf").write_text("0-1 printenv SLURM_STEP_NUM_TASKS\n")
    result = cluster.run("srun", "--multi-prog", "two.conf", user="bob")
    assert (result.returncode, result.stdout) == (0, "2\n2\n"), result.stderr
    (work / "gap.conf").write_text("0 true\n2 true\n")
    refused = cluster.run("srun", "--multi-prog", "gap.conf", user="bob")
    assert (refused.returncode, refused.stderr) == (
        1, "srun: error: Configuration file gap.conf invalid, no record for task id 1\n")


def test_whole_threads_and_het_group_zero_run_the_step(cluster: Cluster) -> None:
    """--whole: the step has every CPU of the job on its node (--exact: only what it asked for);
    -T and --het-group=0 (the job itself) are taken as Slurm takes them."""
    whole = cluster.run("salloc", "-N1", "-n2", "srun", "--whole", "-n1", "-T", "4", "--het-group=0",
                        "sh", "-c", "nproc", user="alice")
    exact = cluster.run("salloc", "-N1", "-n2", "srun", "--exact", "-n1", "sh", "-c", "nproc", user="alice")
    assert (whole.returncode, exact.returncode) == (0, 0), (whole.stderr, exact.stderr)
    assert (whole.stdout, exact.stdout) == ("2\n", "1\n")
    refused = cluster.run("salloc", "-N1", "srun", "--whole", "--exact", "true", user="alice")
    assert "srun: error: --exact and --whole are mutually exclusive." in refused.stderr


def test_het_group_and_x11_in_an_existing_job(cluster: Cluster) -> None:
    het = cluster.run("salloc", "-N1", "srun", "--het-group=1", "true", user="bob")
    assert "--het-group above 0" in het.stderr and het.returncode == 1, het.stderr
    x11 = cluster.run("salloc", "-N1", "env", "DISPLAY=remote:10", "srun", "--x11", "echo", "ran", user="bob")
    assert x11.returncode == 0, x11.stderr
    assert x11.stdout == "ran\n"
    assert "srun: error: Ignoring --x11 option for a job step within an existing job." in x11.stderr
    new_job = cluster.run("env", "DISPLAY=remote:10", "srun", "--x11", "true", user="bob")
    assert (new_job.returncode, new_job.stderr) == (
        1, "srun: error: Unable to allocate resources: X11 forwarding not available\n")


SCRIPT = """#!/bin/sh
{{ echo "$SLURM_SCRIPT_CONTEXT $(id -un) job=${{SLURM_JOB_ID:+yes}} nodes=$SLURM_NNODES step=${{SLURM_STEP_ID:-none}} args=$*"; }} >> {log}
exit {code}
"""


def test_prolog_and_epilog_run_around_the_step_as_the_user(cluster: Cluster) -> None:
    import os

    work = cluster.work_dir("alice")
    log = work / "scripts.log"
    for name, code in (("pro", 0), ("epi", 0), ("bad", 3)):
        (work / name).write_text(SCRIPT.format(log=log, code=code))
        os.chmod(work / name, 0o755)
    result = cluster.run("srun", "-N2", f"--prolog={work}/pro", f"--epilog={work}/epi", "sh", "-c",
                         f"echo task >> {log}", user="alice")
    assert result.returncode == 0, result.stderr
    assert log.read_text().splitlines() == [
        "prolog_srun alice job=yes nodes=2 step=none args=sh -c echo task >> " + str(log), "task", "task",
        "epilog_srun alice job=yes nodes=2 step=0 args=sh -c echo task >> " + str(log)]
    log.unlink()
    failed = cluster.run("srun", f"--prolog={work}/bad", "sh", "-c", f"echo task >> {log}", user="alice")
    assert (failed.returncode, failed.stderr) == (1, "srun: error: srun prolog failed rc = 3. Aborting step.\n")
    assert log.read_text().splitlines()[1:] == [], "the step ran after its prolog failed"


def test_preserve_env_passes_srun_s_counts_to_the_tasks(cluster: Cluster) -> None:
    show = ["printenv", "SLURM_NTASKS", "SLURM_NNODES", "SLURM_STEP_NUM_TASKS"]
    plain = cluster.run("salloc", "-N2", "-n4", "srun", "-N1", "-n1", *show, user="alice")
    kept = cluster.run("salloc", "-N2", "-n4", "srun", "-E", "-N1", "-n1", *show, user="alice")
    assert (plain.returncode, kept.returncode) == (0, 0), (plain.stderr, kept.stderr)
    assert (plain.stdout, kept.stdout) == ("1\n1\n1\n", "4\n2\n1\n")


def test_bcast_copies_the_executable_and_runs_the_copy(cluster: Cluster) -> None:
    import os
    import re

    work = cluster.work_dir("bob")
    prog = work / "prog"
    prog.write_text('#!/bin/sh\necho "$(id -un) runs $0"\n')
    os.chmod(prog, 0o750)
    os.chown(prog, pwd_uid("bob"), -1)
    dest = f"/tmp/bcast-{os.getpid()}-prog"
    into_file = cluster.run("salloc", "-N1", "srun", f"--bcast={dest}", "./prog", user="bob")
    assert (into_file.returncode, into_file.stdout) == (0, f"bob runs {dest}\n"), into_file.stderr
    assert os.stat(dest).st_uid == pwd_uid("bob") and os.stat(dest).st_mode & 0o777 == 0o750
    os.unlink(dest)
    into_dir = cluster.run("salloc", "-N2", "srun", "--bcast", "prog", user="bob")
    assert into_dir.returncode == 0, into_dir.stderr
    runs = sorted(into_dir.stdout.splitlines())
    assert len(runs) == 2 and all(re.fullmatch(rf"bob runs {work}/slurm_bcast_\d+\.1_node[12]", r) for r in runs), runs
    assert sorted(p.name.rsplit("_", 1)[1] for p in work.glob("slurm_bcast_*")) == ["node1", "node2"]
    assert not list(work.glob(".slurm_bcast_*")), "a staged copy was left behind"
    missing = cluster.run("salloc", "srun", "--bcast", "no-such-program", user="bob")
    assert "srun: fatal: Can not execute no-such-program\n" in missing.stderr and missing.returncode == 1
    outside = cluster.run("srun", "-N1", f"--bcast={dest}", "./prog", user="bob")   # a job of its own
    assert (outside.returncode, outside.stdout) == (0, f"bob runs {dest}\n"), outside.stderr
    states = cluster.run("squeue", "-h", "-t", "all", "-u", "bob", "-n", "prog", "-o", "%T", user="bob").stdout
    assert states.split() == ["COMPLETED"], states   # srun gave its job back when the step ended
    os.unlink(dest)


def pwd_uid(user: str) -> int:
    import pwd

    return pwd.getpwnam(user).pw_uid


def test_relative_starts_the_step_at_a_node_of_the_allocation(cluster: Cluster) -> None:
    first = cluster.run("salloc", "-N2", "srun", "-N1", "-r", "0", "printenv", "SLURMD_NODENAME", user="alice")
    second = cluster.run("salloc", "-N2", "srun", "-N1", "-r", "1", "printenv", "SLURMD_NODENAME", user="alice")
    assert (first.returncode, second.returncode) == (0, 0), (first.stderr, second.stderr)
    assert (first.stdout, second.stdout) == ("node1\n", "node2\n")
    too_far = cluster.run("salloc", "-N2", "srun", "-N2", "-r", "1", "true", user="alice")
    assert ("srun: error: --relative and --nodes option incompatible with count of allocated nodes (1+2>2)"
            in too_far.stderr), too_far.stderr
    from_env = cluster.run("salloc", "-N2", "srun", "-r", "1", "true", user="alice")
    assert "--relative and SLURM_JOB_NUM_NODES option incompatible" in from_env.stderr, from_env.stderr


def test_salloc_get_user_env_starts_from_the_users_login_environment(cluster: Cluster) -> None:
    """Root's salloc --uid=alice --get-user-env: alice's login variables under salloc's own."""
    show = ["printenv", "LOGNAME", "HOME"]
    loaded = cluster.run("env", "-u", "LOGNAME", "salloc", "--uid=alice", "--get-user-env", *show)
    plain = cluster.run("env", "-u", "LOGNAME", "salloc", "--uid=alice", *show)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.split() == ["alice", "/root"]   # HOME: salloc's own wins
    assert plain.stdout.split() == ["/root"]
    refused = cluster.run("salloc", "--get-user-env", "true", user="bob")
    assert (refused.returncode, refused.stderr) == (1, "salloc: error: SlurmdUser must be root to use --get-user-env\n")
