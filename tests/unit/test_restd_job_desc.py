"""Slurm's job_desc_msg into the controller's terms (pyslurm_restd.job_desc): bounded numbers,
unsupported fields refused by name, never ignored."""
from __future__ import annotations

import pytest

from pyslurm_restd import job_desc
from pyslurm_restd.envelope import RestError

SCRIPT = "#!/bin/bash\ntrue\n"


def test_submission_fields() -> None:
    desc = job_desc.submission({"script": SCRIPT, "job": {
        "name": "x", "current_working_directory": "/tmp", "partition": "a,b", "tasks": 4, "cpus_per_task": 2,
        "memory_per_node": {"set": True, "infinite": False, "number": 2048}, "time_limit": {"infinite": True},
        "environment": ["A=1"], "argv": ["script", "arg1"], "tres_per_node": "gres/gpu:2", "shared": ["none"],
        "hold": True, "required_nodes": ["n1", "n2"]}})
    assert (desc.name, list(desc.partitions), desc.num_tasks, desc.cpus_per_task) == ("x", ["a", "b"], 4, 2)
    assert (desc.mem_per_node_mb, desc.time_limit_min, desc.gres, desc.exclusive) == (2048, -1, "gpu:2", True)
    assert (list(desc.argv), desc.nodelist, desc.hold, desc.script) == (["arg1"], "n1,n2", True, SCRIPT)


@pytest.mark.parametrize("job, words", [
    ({"current_working_directory": "/tmp", "mail_type": ["END"]}, "mail_type"),
    ({"current_working_directory": "/tmp", "tasks": 2**40}, "out of range"),
    ({"current_working_directory": "/tmp", "tasks": True}, "integer"),
    ({"current_working_directory": "relative"}, "absolute"),
    ({}, "current_working_directory"),
    ({"current_working_directory": "/tmp", "nice": 2**31}, "nice"),
    ({"current_working_directory": "/tmp", "shared": ["oversubscribe"]}, "shared"),
])
def test_refusals_name_the_problem(job: dict[str, object], words: str) -> None:
    with pytest.raises(RestError) as refused:
        job_desc.submission({"script": SCRIPT, "job": job})
    assert refused.value.error_number == 9002 and words in refused.value.description


def test_script_must_be_a_script() -> None:
    with pytest.raises(RestError, match="#!"):
        job_desc.submission({"script": "true", "job": {"current_working_directory": "/tmp"}})


def test_update_settings() -> None:
    assert job_desc.update({"time_limit": 5, "hold": False, "qos": "high"}) == (["TimeLimit=5", "QOS=high"], False)
    assert job_desc.update({"time_limit": {"infinite": True}}) == (["TimeLimit=UNLIMITED"], None)
    with pytest.raises(RestError, match="name"):
        job_desc.update({"name": "new"})
