"""A request no node of the cluster could ever hold is refused at submission, with the line Slurm's
controller adds (node_scheduler.c's _set_err_msg, which sbatch and srun print before
"Requested node configuration is not available"); one that only exceeds the partition's CPUs pends
(PartitionConfig), as Slurm does without EnforcePartLimits. core/admission.py.

Real Slurm 22.05.8 (one node: 2 CPUs, 24100 MB, TmpDisk 0) printed, exit 1:
  srun --tmp=999999 true    -> srun: error: Temporary disk specification can not be satisfied
  srun --mem=999999 true    -> srun: error: Memory specification can not be satisfied
  srun --mincpus=999999 true -> srun: error: CPU count per node can not be satisfied
each followed by `srun: error: Unable to allocate resources: Requested node configuration is not
available`; `srun -c 5 true` and `srun -n 5 true` pended (PartitionConfig).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pyslurm_common.errors import Strerror
from pyslurm_ctld.model.job import Reason
from tests.builders import error_of, make_manager, submit

CONF = """\
ClusterName=lab
SlurmctldHost=head
NodeName=n1 CPUs=2 RealMemory=2000 TmpDisk=100
NodeName=n2 CPUs=4 RealMemory=1000 TmpDisk=500
PartitionName=debug Nodes=n1,n2 Default=YES
"""


@pytest.mark.parametrize(("request_", "detail"), [
    ({"tmp_disk_mb": 999999}, "Temporary disk specification can not be satisfied"),
    ({"mem_per_node_mb": 999999}, "Memory specification can not be satisfied"),
    ({"mem_per_cpu_mb": 999999}, "Memory specification can not be satisfied"),
    ({"min_cpus_per_node": 999999}, "CPU count per node can not be satisfied"),
    # each node lacks something (n1 the disk, n2 the memory): the message is the last node's
    ({"tmp_disk_mb": 200, "mem_per_node_mb": 1500}, "Memory specification can not be satisfied"),
])
def test_what_no_node_could_ever_hold_is_refused_in_slurms_words(tmp_path: Path, request_: dict[str, object],
                                                                  detail: str) -> None:
    mgr = make_manager(tmp_path, conf=CONF)
    refused = error_of(submit, mgr, **request_)
    assert (refused.strerror, refused.detail) == (Strerror.BAD_NODE_CONFIG, detail)


def test_what_one_node_holds_is_taken_and_more_cpus_than_the_partition_pends(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, conf=CONF)
    assert submit(mgr, tmp_disk_mb=500, mem_per_node_mb=1000).reason is Reason.NONE
    assert submit(mgr, tmp_disk_mb=0, min_cpus_per_node=4).reason is Reason.NONE
    beyond = submit(mgr, num_tasks=7, ntasks_given=True)
    assert beyond.reason is Reason.PARTITION_CONFIG
