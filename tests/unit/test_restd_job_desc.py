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
    ({"current_working_directory": "/tmp", "burst_buffer": "#DW jobdw capacity=1GB"}, "burst_buffer"),
    ({"current_working_directory": "/tmp", "mail_type": ["NOPE"]}, "mail_type"),
    ({"current_working_directory": "/tmp", "tres_per_job": "gres/fpga:1"}, "only GPUs"),
    ({"current_working_directory": "/tmp", "open_mode": ["SIDEWAYS"]}, "open_mode"),
    ({"current_working_directory": "/tmp", "kill_warning_signal": "NOPE"}, "Unknown signal"),
    ({"current_working_directory": "/tmp", "nodes": "4-2"}, "nodes"),
    ({"current_working_directory": "/tmp", "comment": "x" * 1025}, "comment"),
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


def test_the_fields_beyond_the_basic_request_fill_what_sbatch_options_fill() -> None:
    desc = job_desc.submission({"script": SCRIPT, "job": {
        "current_working_directory": "/tmp", "nodes": "2-4", "tasks_per_node": 3, "comment": "calib",
        "open_mode": ["APPEND"], "mail_type": ["end", "FAIL"], "mail_user": "a@b", "licenses": "matlab:2",
        "reservation": "maint", "priority": {"set": True, "number": 7}, "time_minimum": {"set": True, "number": 5},
        "tres_per_job": "gres/gpu:a100:4", "tres_per_task": "gres/gpu:a100:1", "memory_per_tres": "gres/gpu:2048",
        "kill_warning_signal": "USR1", "kill_warning_delay": {"set": True, "number": 30},
        "kill_warning_flags": ["BATCH_JOB"], "kill_on_node_fail": False, "contiguous": True,
        "flags": ["SPREAD_JOB"], "temporary_disk_per_node": 100}})
    assert (desc.min_nodes, desc.ntasks_per_node, desc.num_tasks, desc.ntasks_given) == (2, 3, 6, True)
    assert (desc.comment, desc.open_mode, desc.mail_type, desc.mail_user) == ("calib", "append", "END,FAIL", "a@b")
    assert (desc.licenses, desc.reservation, desc.priority_given, desc.priority, desc.time_min) == (
        "matlab:2", "maint", True, 7, 5)
    assert (desc.gpus, desc.gpus_per_task, desc.gpu_type, desc.mem_per_gpu_mb) == (4, 1, "a100", 2048)
    assert (desc.signal_number, desc.signal_seconds, desc.signal_batch_only) == (10, 30, True)
    assert (desc.no_kill, desc.contiguous, desc.spread_job, desc.tmp_disk_mb) == (True, True, True, 100)


def test_what_a_generated_client_sends_for_fields_left_alone_is_taken() -> None:
    """Slurm's defaults for fields pyslurm does not act on: accepted, not refused by name."""
    desc = job_desc.submission({"script": SCRIPT, "job": {
        "current_working_directory": "/tmp", "burst_buffer": "", "x11": [], "core_specification": 0,
        "required_switches": {"set": False, "infinite": False, "number": 0}, "rlimits": {}, "mail_type": [],
        "crontab": {}, "kill_warning_signal": "", "immediate": False}})
    assert desc.work_dir == "/tmp" and desc.mail_type == "" and desc.signal_number == 0
