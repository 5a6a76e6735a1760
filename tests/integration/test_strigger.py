"""strigger against real daemons: triggers are journaled by the controller, fire on a job's end
and a node going down, and their programs run as the user who set them (really: the uid the
program sees), with the job id or the node names as the last argument. Output and refusals as
Slurm 22.05's strigger printed them on the oracle (recorded below)."""
from __future__ import annotations

import pwd
import signal
from pathlib import Path
from typing import Iterator

import pytest

from .conftest import Cluster, running_cluster, two_node_spec, wait_for

HEADER = "TRIG_ID RES_TYPE   RES_ID TYPE                                OFFSET USER     FLAGS PROGRAM\n"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with running_cluster(two_node_spec) as c:
        yield c


def _program(c: Cluster, name: str) -> tuple[Path, Path]:
    """A trigger program that records who ran it and its arguments, one file per run."""
    record = c.work / f"{name}-runs"
    record.mkdir(mode=0o777, exist_ok=True)
    record.chmod(0o777)
    script = c.work / f"{name}.sh"
    script.write_text(f'#!/bin/sh\necho "$(id -u) $(id -g) $0 $*" > {record}/.run.$$ && mv {record}/.run.$$ {record}/run.$$\n')
    script.chmod(0o755)
    return script, record


def _runs(record: Path) -> list[str]:
    return sorted(p.read_text().strip() for p in record.iterdir() if not p.name.startswith("."))   # whole ones


def strigger(c: Cluster, *args: str, user: str | None = None) -> tuple[int, str, str]:
    result = c.run("strigger", *args, user=user)
    return result.returncode, result.stdout, result.stderr


def test_a_fini_trigger_runs_its_program_as_the_user_who_set_it_with_the_job_id(cluster: Cluster) -> None:
    script, record = _program(cluster, "fini")
    job = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 2", user="alice")
    assert strigger(cluster, "--set", f"--jobid={job}", "--fini", f"--program={script} done", user="alice") == (
        0, "", "")
    code, out, _ = strigger(cluster, "--get", "-j", str(job), user="bob")      # anyone may list them
    lines = out.splitlines()
    assert code == 0 and lines[0] == HEADER.rstrip("\n")
    trig_id = int(lines[1].split()[0])
    assert lines[1] == (f"{trig_id:>7} job       {job:>7} fini                                     0 alice"
                        f"          {script} done")
    cluster.wait_state(job, "COMPLETED")
    alice = pwd.getpwnam("alice")
    runs = wait_for(lambda: _runs(record), timeout=30)
    assert runs == [f"{alice.pw_uid} {alice.pw_gid} {script} done {job}"]   # a script's $0 is its path
    assert strigger(cluster, "--get", "-j", str(job)) == (0, "", "")          # fired: gone (no PERM)


def test_a_permanent_node_down_trigger_passes_the_node_names_and_stays(cluster: Cluster) -> None:
    script, record = _program(cluster, "down")
    assert strigger(cluster, "--set", "--node", "--down", "--flags=PERM", f"--program={script}") == (0, "", "")
    _, out, _ = strigger(cluster, "--get", "--down", "-N")
    [line] = out.splitlines()
    trig_id = int(line.split()[0])
    assert line == f"{trig_id:>7} node            * down                                     0 root     PERM  {script}"
    try:
        cluster.run("scontrol", "update", "nodename=node2", "state=down", "reason=trigger test", check=True)
        assert wait_for(lambda: _runs(record), timeout=30) == [f"0 0 {script} node2"]
        _, out, _ = strigger(cluster, "--get", "--id", str(trig_id), "-N")
        assert out == line + "\n"                                               # PERM: still there
    finally:
        cluster.run("scontrol", "update", "nodename=node2", "state=resume", check=True)
        assert strigger(cluster, "--clear", f"--id={trig_id}") == (0, "", "")
    assert strigger(cluster, "--get", "--id", str(trig_id)) == (0, "", "")


def test_refusals_in_slurms_words(cluster: Cluster) -> None:
    """As the oracle: `slurm_set_trigger: Duplicate event trigger`, `slurm_set_trigger: Invalid job
    id specified`, `slurm_clear_trigger: Access/permission denied` / `No such process` (exit 1),
    nothing with -Q (exit 0)."""
    job = cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "true", user="alice")
    args = ("--set", f"--jobid={job}", "--time", "--offset=-600", "--program=/bin/true")
    try:
        assert strigger(cluster, *args, user="alice") == (0, "", "")
        assert strigger(cluster, *args, user="alice") == (1, "", "slurm_set_trigger: Duplicate event trigger\n")
        assert strigger(cluster, "--set", "--jobid=999999", "--fini", "--program=/bin/true", user="alice") == (
            1, "", "slurm_set_trigger: Invalid job id specified\n")
        _, out, _ = strigger(cluster, "--get", "--time", "-N", "--user=alice", f"--jobid={job}")
        [line] = out.splitlines()
        trig_id = int(line.split()[0])
        assert line == (f"{trig_id:>7} job       {job:>7} time                                  -600 alice"
                        "          /bin/true")
        assert strigger(cluster, "--clear", f"--id={trig_id}", user="bob") == (
            1, "", "slurm_clear_trigger: Access/permission denied\n")
        assert strigger(cluster, "--clear", "--id=999999", user="bob") == (
            1, "", "slurm_clear_trigger: No such process\n")
        assert strigger(cluster, "--clear", "--id=999999", "-Q", user="bob") == (0, "", "")
        assert strigger(cluster, "--clear", f"--jobid={job}", user="alice") == (0, "", "")
        assert strigger(cluster, "--get", "-j", str(job)) == (0, "", "")
    finally:
        cluster.run("scancel", str(job), check=True)


def test_triggers_survive_a_controller_kill(cluster: Cluster) -> None:
    job = cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "true", user="alice")
    assert strigger(cluster, "--set", f"--jobid={job}", "--fini", "--program=/bin/true", user="alice")[0] == 0
    before = strigger(cluster, "--get", "-j", str(job))[1]
    cluster.stop("ctld", signal.SIGKILL)
    cluster.start("ctld")
    wait_for(lambda: cluster.run("squeue").returncode == 0, timeout=30)
    assert strigger(cluster, "--get", "-j", str(job)) == (0, before, "")
    assert strigger(cluster, "--set", f"--jobid={job}", "--up", "--program=/bin/true", user="alice")[0] == 0
    ids = [int(line.split()[0]) for line in strigger(cluster, "--get", "-j", str(job), "-N")[1].splitlines()]
    assert len(ids) == 2 and ids[1] > ids[0]          # ids go on after the restart
    cluster.run("scancel", str(job), check=True)
    cluster.wait_state(job, "CANCELLED")
