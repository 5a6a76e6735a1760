"""MPI across two "machines": node1 on this host and remote1 in a network namespace of its own
(tests/integration/netns.py), so the ranks, PMI exchange and launcher daemons cross a real link.

srun --mpi=pmi2 (MPICH), Open MPI's mpirun and MPICH's mpiexec (hydra) inside an allocation of
both nodes. Both hosts share one host name, which resolves to loopback; hydra is told which
interface is this host's end of the link (`-iface`), as on a machine with several networks.
Skipped without Debian's mpich and openmpi-bin (.ci/run installs both)."""
from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from .conftest import Cluster, free_port, running_cluster, two_node_spec, wait_for
from .netns import SeparateHost, separate_host
from .test_mpi_pmi2 import ALLREDUCE, _ranks
from .test_multi_host import node_states, start_agent_on

pytestmark = pytest.mark.skipif(not (shutil.which("mpicc.mpich") and shutil.which("mpicc.openmpi")),
                                reason="needs Debian's mpich and openmpi-bin")
BOTH = ("-p", "both", "-w", "node1,remote1", "-N2", "-n4")


@pytest.fixture(scope="module")
def host() -> Iterator[SeparateHost]:
    with separate_host("10.251.87") as second:
        yield second


@pytest.fixture(scope="module")
def lab(host: SeparateHost) -> Iterator[Cluster]:
    port = free_port()

    def spec(root: Path, name: str):  # type: ignore[no-untyped-def]
        return dataclasses.replace(two_node_spec(root, name), controller_addr=host.gateway, extra=(
            f"NodeName=remote1 NodeAddr={host.address} CPUs=2 RealMemory=500 Port={port}",
            "PartitionName=both Nodes=node1,remote1",
        ))

    with running_cluster(spec, wait_idle=False) as c:
        start_agent_on(c, host, "remote1")
        wait_for(lambda: node_states(c).get("remote1") == "idle", timeout=30)
        yield c


def _build(lab: Cluster, compiler: str, name: str) -> str:
    source = lab.work / f"{name}.c"
    source.write_text(ALLREDUCE.replace("#include <unistd.h>", "#include <unistd.h>\n#include <stdlib.h>"))
    subprocess.run([compiler, "-o", str(lab.work / name), str(source)], check=True, timeout=120)
    os.chmod(lab.work / name, 0o755)
    return str(lab.work / name)


def _check(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, result.stderr
    rows = _ranks(result.stdout)
    assert {(size, total) for size, total, _ in rows.values()} == {(4, 10)}
    # Ranks in blocks over the allocation's nodes in their order: node1, then remote1.
    assert [rows[rank][2] for rank in range(4)] == ["node1", "node1", "remote1", "remote1"]


def test_pmi2_and_both_launchers_across_the_link(lab: Cluster, host: SeparateHost) -> None:
    mpich = _build(lab, "mpicc.mpich", "allreduce_mpich")
    _check(lab.run("srun", "--mpi=pmi2", *BOTH, mpich, user="alice", timeout=120))
    _check(lab.run("salloc", *BOTH, "mpiexec.mpich", "-iface", host.link, "-n", "4", mpich,
                   user="alice", timeout=120))
    ompi = _build(lab, "mpicc.openmpi", "allreduce_ompi")
    _check(lab.run("salloc", *BOTH, "mpirun.openmpi", "--mca", "btl", "self,tcp", "-np", "4", ompi,
                   user="bob", timeout=120))
