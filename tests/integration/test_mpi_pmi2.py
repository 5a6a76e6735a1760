"""MPI programs under srun --mpi=pmi2: Debian's MPICH, built with mpicc here, wired up by the
stepds' PMI service (pyslurm_d/pmi_service.py) with the key-value space exchanged through srun.

Skipped without mpicc.mpich (CI installs Debian's `mpich`, .ci/run). MPICH's own compiler wrapper
is named, as Debian's Open MPI (also installed) takes over the plain `mpicc` alternative."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import Iterator

import pytest

from .conftest import KILL_WAIT, Cluster, job_cgroups, running_cluster, two_node_spec, wait_for


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """This module's own cluster: once in CI a cancelled MPI step's stepd stopped answering the
    node agent's terminate for 30 s (it waited for an acknowledgement from its killed srun that
    could never come; see test_step_end_without_srun.py) and its node stayed held, which starved
    every later test of the shared cluster. The cancelling test runs last here for the same reason."""
    with running_cluster(two_node_spec) as c:
        yield c

MPICC = "mpicc.mpich"
pytestmark = pytest.mark.skipif(shutil.which(MPICC) is None, reason="needs Debian's mpich (mpicc.mpich)")

ALLREDUCE = r"""
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <time.h>
int main(int argc, char **argv) {
    int rank, size, sum = 0, one;
    char host[256];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    one = rank + 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    gethostname(host, sizeof host);
    printf("rank=%d size=%d sum=%d node=%s\n", rank, size, sum, getenv("SLURMD_NODENAME"));
    if (argc > 1 && strcmp(argv[1], "spin") == 0) { clock_t end = clock() + CLOCKS_PER_SEC / 2; while (clock() < end); }
    else if (argc > 1) { MPI_Barrier(MPI_COMM_WORLD); sleep(atoi(argv[1])); }
    MPI_Finalize();
    return 0;
}
"""


@pytest.fixture(scope="module")
def allreduce(cluster: Cluster) -> str:
    source = cluster.work / "allreduce.c"
    source.write_text(ALLREDUCE.replace("#include <unistd.h>", "#include <unistd.h>\n#include <stdlib.h>"))
    binary = cluster.work / "allreduce"
    subprocess.run([MPICC, "-o", str(binary), str(source)], check=True, timeout=120)
    os.chmod(binary, 0o755)
    return str(binary)


def _ranks(stdout: str) -> dict[int, tuple[int, int, str]]:
    rows = {}
    for line in stdout.splitlines():
        match = re.fullmatch(r"rank=(\d+) size=(\d+) sum=(-?\d+) node=(\S+)", line)
        assert match, f"unexpected output line {line!r}"
        rows[int(match[1])] = (int(match[2]), int(match[3]), match[4])
    return rows


def test_allreduce_on_one_node(cluster: Cluster, allreduce: str) -> None:
    # The test nodes have two CPUs each.
    result = cluster.run("srun", "--mpi=pmi2", "-N1", "-n2", allreduce, user="alice")
    assert result.returncode == 0, result.stderr
    rows = _ranks(result.stdout)
    assert sorted(rows) == [0, 1]
    assert {(size, total) for size, total, _ in rows.values()} == {(2, 3)}
    assert len({node for _, _, node in rows.values()}) == 1


def test_allreduce_across_two_nodes(cluster: Cluster, allreduce: str) -> None:
    result = cluster.run("srun", "--mpi=pmi2", "-N2", "-n4", allreduce, user="bob")
    assert result.returncode == 0, result.stderr
    rows = _ranks(result.stdout)
    assert sorted(rows) == [0, 1, 2, 3]
    assert {(size, total) for size, total, _ in rows.values()} == {(4, 10)}
    assert rows[0][2] == rows[1][2] != rows[2][2] == rows[3][2]   # block distribution


def test_without_pmi2_the_tasks_are_singletons(cluster: Cluster, allreduce: str) -> None:
    result = cluster.run("srun", "--mpi=none", "-N1", "-n2", allreduce, user="alice")
    assert result.returncode == 0, result.stderr
    assert {(size, total) for size, total, _ in _ranks(result.stdout).values()} == {(1, 1)}


def first_step(cluster: Cluster, job_id: int, user: str, fields: str) -> list[str]:
    """sacct's `fields` of step <job>.0 (empty until it is recorded)."""
    rows = cluster.run("sacct", "-n", "-P", "-j", str(job_id), "-o", f"JobID,{fields}", user=user).stdout.splitlines()
    return next((row.split("|")[1:] for row in rows if row.startswith(f"{job_id}.0|")), [])


def first_step_cpu_seconds(cluster: Cluster, job_id: int, user: str) -> float:
    minutes, _, seconds = first_step(cluster, job_id, user, "TotalCPU")[0].rpartition(":")
    return float(seconds) + 60 * int(minutes or 0)


# A PMI-2 client as MPICH's pmi2 library talks (Debian's MPICH speaks PMI-1; Slurm serves both).
PMI2_CLIENT = r"""
import os, socket
fd = socket.socket(fileno=int(os.environ["PMI_FD"]))
def call(cmd, **pairs):
    body = ("cmd=%s;" % cmd + "".join("%s=%s;" % (k, v.replace(";", ";;")) for k, v in pairs.items())).encode()
    fd.sendall(b"%-6d" % len(body) + body)
    size = int(fd.recv(6, socket.MSG_WAITALL))
    text = fd.recv(size, socket.MSG_WAITALL).decode()
    return dict(p.split("=", 1) for p in text.replace(";;", "\0").split(";") if p)
fd.sendall(b"cmd=init pmi_version=2 pmi_subversion=0\n")
assert b"rc=0" in fd.recv(200)
init = call("fullinit", pmirank=os.environ["PMI_RANK"], threaded="FALSE")
rank, size = int(init["rank"]), int(init["size"])
mapping = call("info-getjobattr", key="PMI_process_mapping")["value"]
call("kvs-put", key="card-%d" % rank, value="node;%s" % os.environ["SLURMD_NODENAME"])
call("kvs-fence")
cards = [call("kvs-get", jobid=call("job-getid")["jobid"], key="card-%d" % r)["value"].replace("\0", ";")
         for r in range(size)]
print(rank, size, os.environ["PMI_JOBID"], mapping, ",".join(cards))
call("finalize")
"""


def test_pmi2_wire_protocol_across_two_nodes(cluster: Cluster) -> None:
    script = cluster.work / "pmi2_client.py"
    script.write_text(PMI2_CLIENT)
    result = cluster.run("srun", "--mpi=pmi2", "-N2", "-n4", "/usr/bin/python3", str(script), user="alice")
    assert result.returncode == 0, result.stderr
    lines = sorted(result.stdout.splitlines())
    assert len(lines) == 4, result.stdout
    step_ids = set()
    for rank, line in enumerate(lines):
        got_rank, size, jobid, mapping, cards = line.split()
        assert (int(got_rank), size, mapping) == (rank, "4", "(vector,(0,2,2))")
        step_ids.add(jobid)
        assert cards.split(",")[0] == cards.split(",")[1] != cards.split(",")[2] == cards.split(",")[3]
        assert cards.startswith("node;node")
    assert len(step_ids) == 1 and re.fullmatch(r"\d+\.\d+", step_ids.pop())


def test_mpi_list_and_missing_plugins(cluster: Cluster) -> None:
    """As Debian's srun 22.05 (the oracle): its pmix plugins are listed but cannot load the PMIx
    library (none here either); a plugin it lacks is not found."""
    listed = cluster.run("srun", "--mpi=list", user="alice")
    assert (listed.returncode, listed.stdout) == (0, "MPI plugin types are...\n\tpmix\n\tnone\n\tpmi2\n"
                                                     "specific pmix plugin versions available: pmix_v4\n")
    refused = cluster.run("srun", "--mpi=pmix", "true", user="alice")
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        "srun: error:  mpi/pmix_v4: init: (null) [0]: mpi_pmix.c:195: pmi/pmix: can not load PMIx library",
        "srun: error: Couldn't load specified plugin name for mpi/pmix: Plugin init() callback failed",
        "srun: error: MPI: Cannot create context for mpi/pmix",
        "srun: error: MPI: Unable to load any plugin",
        "srun: error: Invalid MPI type 'pmix', --mpi=list for acceptable types"]
    missing = cluster.run("srun", "--mpi=pmix_v3", "true", user="alice")
    assert (missing.returncode, missing.stderr.splitlines()[:2]) == (1, [
        "srun: error: Couldn't find the specified plugin name for mpi/pmix_v3 looking at all files",
        "srun: error: cannot find mpi plugin for mpi/pmix_v3"])


def test_mpiexec_hydra_in_salloc(cluster: Cluster, allreduce: str) -> None:
    """MPICH's own launcher: hydra's slurm bootstrap reads the allocation's variables and starts one
    proxy per node with srun; the ranks wire up through the proxies, not through PMI-2 here."""
    result = cluster.run("salloc", "-N2", "-n4", "mpiexec.mpich", "-n", "4", allreduce, user="bob", timeout=120)
    assert result.returncode == 0, result.stderr
    rows = _ranks(result.stdout)
    assert sorted(rows) == [0, 1, 2, 3]
    assert {(size, total) for size, total, _ in rows.values()} == {(4, 10)}
    assert rows[0][2] == rows[1][2] != rows[2][2] == rows[3][2]


def test_mpi_step_is_accounted_and_scancel_leaves_no_mpi_process(cluster: Cluster, allreduce: str) -> None:
    script = f"#!/bin/sh\nsrun --mpi=pmi2 -n4 {allreduce} spin\nsrun --mpi=pmi2 -n4 {allreduce} 300\n"
    job_id = int(cluster.run("sbatch", "--parsable", "-N2", "-n4", user="alice", input=script, check=True).stdout)
    out = cluster.work_dir("alice") / f"slurm-{job_id}.out"
    wait_for(lambda: out.exists() and out.read_text().count("size=4 sum=10") == 8, timeout=60)

    def mpi_processes() -> list[str]:
        return subprocess.run(["pgrep", "-f", allreduce], capture_output=True, text=True).stdout.split()

    assert len(mpi_processes()) >= 4
    cluster.run("scancel", str(job_id), user="alice", check=True)
    cluster.wait_state(job_id, "CANCELLED", timeout=40)
    wait_for(lambda: not mpi_processes(), timeout=20)
    wait_for(lambda: not job_cgroups(cluster, job_id), timeout=KILL_WAIT + 9)   # every stepd of it ended
    wait_for(cluster.nodes_idle, timeout=KILL_WAIT + 9)

    wait_for(lambda: first_step(cluster, job_id, "alice", "NTasks,State") == ["4", "COMPLETED"], timeout=30)
    assert first_step_cpu_seconds(cluster, job_id, "alice") >= 1.0   # four tasks spun half a second of CPU each
