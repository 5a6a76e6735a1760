"""--json/--yaml and `scontrol -d` against real Slurm 22.05's output for the same kinds of jobs
(tests/data/slurm_data_output, recorded by record.sh beside it): the serializers write Slurm's
own documents byte for byte, and our records have its keys, in its order, with its value types."""
from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import pytest

from cli import scontrol_show, squeue_json
from cli.data_output import EMPTY, json_text, yaml_text
from pyslurm_common.rpc.ctld_pb2 import NodeInfo
from pyslurm_common.rpc.types_pb2 import JobInfo

DATA = Path(__file__).resolve().parents[1] / "data/slurm_data_output"
# sacct's fields Slurm keeps as empty strings (a bare `!!str` in YAML), not unset ones
SACCT_EMPTY_TEXT = (("constraints",), ("mcs", "label"), ("wckey", "wckey"))


def _oracle(name: str) -> tuple[str, Any]:
    text = (DATA / f"{name}.json").read_text()
    return text, json.loads(text)


@pytest.mark.parametrize("name", ["squeue", "sinfo", "sacct"])
def test_serializers_write_slurms_documents_byte_for_byte(name: str) -> None:
    text, document = _oracle(name)
    assert json_text(document) == text
    if name == "sacct":
        for job in document["jobs"]:
            for path in SACCT_EMPTY_TEXT:
                parent = job
                for key in path[:-1]:
                    parent = parent[key]
                assert parent[path[-1]] == ""
                parent[path[-1]] = EMPTY
    assert yaml_text(document) == (DATA / f"{name}.yaml").read_text()


def _shape(value: Any) -> Any:
    """Keys in order and value types, recursively (a list by its first item)."""
    if isinstance(value, dict):
        return [(key, _shape(item)) for key, item in value.items()]
    if isinstance(value, list):
        return ["list", *([_shape(value[0])] if value else [])]
    return "str" if isinstance(value, str) else type(value).__name__


def _oracle_jobs() -> dict[str, dict[str, Any]]:
    jobs = _oracle("squeue")[1]["jobs"]
    return {kind: next(j for j in reversed(jobs) if match(j)) for kind, match in (   # this recording's
        ("running", lambda j: j["job_state"] == "RUNNING"),
        ("held", lambda j: j["name"] == "held"),
        ("array", lambda j: j["name"] == "arr"),
        ("script", lambda j: j["name"] == "script"))}


NODE = NodeInfo(name="localhost", state="MIXED", cpus=2, alloc_cpus=1, real_memory_mb=24100, alloc_memory_mb=1024,
                free_memory_mb=19000, address="127.0.0.1", port=16818, partitions=["debug"], boot_time=1796289459,
                slurmd_start_time=1796314171, last_busy_time=1796315914, arch="x86_64", os="Linux 6.18 #1 SMP",
                cpu_load=15.48, hostname="localhost", sockets=1, cores_per_socket=2, threads_per_core=1, weight=1,
                version="22.05.8")
BASE = dict(user_id=0, group_id=0, user_name="root", group_name="root", partition="debug", account="root",
            qos="normal", num_nodes=1, num_cpus=1, num_tasks=1, cpus_per_task=1, mem_per_cpu_mb=1024,
            submit_time=1796315651, work_dir="/tmp/w", std_in="/dev/null", requeue=True, submit_host="localhost")
JOBS = {
    "running": JobInfo(job_id=203, name="runner", state="RUNNING", reason="None", priority=1, time_limit_min=10,
                       eligible_time=1796315651, start_time=1796315653, nodes="localhost", batch_host="localhost",
                       std_out="/dev/null", std_out_given="/dev/null", node_names=["localhost"], cpus_per_node=[1], node_cpu_ids=["0"],
                       node_memory_mb=[1024], **BASE),
    "held": JobInfo(job_id=204, name="held", state="PENDING", reason="JobHeldUser", held=True,
                    comment="a comment", std_out="/tmp/w/slurm-204.out", std_err="/tmp/w/slurm-204.out", **BASE),
    "array": JobInfo(job_id=205, name="arr", state="PENDING", reason="JobHeldUser", held=True, array_job_id=205,
                     array_task_str="1-3", array_remainder=True, std_out="/dev/null",
                     std_out_given="/dev/null", **BASE),
    "script": JobInfo(job_id=206, name="script", state="PENDING", reason="JobHeldUser", held=True,
                      command="./job.sh first second arg", **BASE),
}


@pytest.mark.parametrize("kind", sorted(JOBS))
def test_squeue_job_records_have_slurms_keys_order_and_types(kind: str) -> None:
    ours = squeue_json.job_record(JOBS[kind], "anchor", {"localhost": NODE})
    real = _oracle_jobs()[kind]
    assert _shape(ours) == _shape(real)
    # what the same job shows in both
    same = ("job_state", "state_reason", "name", "array_task_string", "command", "tasks", "cpus",
            "node_count", "memory_per_cpu", "priority", "batch_flag", "standard_input", "standard_output",
            "tres_req_str", "show_flags", "flags", "nodes", "batch_host", "time_limit", "billable_tres")
    assert {k: ours[k] for k in same} == {k: real[k] for k in same}
    assert (ours["array_job_id"] == ours["job_id"]) is (real["array_job_id"] == real["job_id"])
    if kind == "running":
        assert ours["job_resources"] == real["job_resources"]
        assert ours["end_time"] - ours["start_time"] == real["end_time"] - real["start_time"]


def test_sinfo_node_record_has_slurms_keys_order_and_types() -> None:
    (real,) = _oracle("sinfo")[1]["nodes"]
    ours = squeue_json.node_record(NODE)
    assert _shape(ours) == _shape(real)
    same = ("state", "tres", "tres_used", "alloc_cpus", "idle_cpus", "tres_weighted", "gres_drained",
            "next_state_after_reboot", "cores", "sockets", "threads")
    assert {k: ours[k] for k in same} == {k: real[k] for k in same}


def _added_lines(plain: str, detailed: str) -> list[str]:
    return [line for line in difflib.ndiff(plain.splitlines(), detailed.splitlines()) if line[:2] in ("+ ", "- ")]


def test_scontrol_details_add_slurms_lines_in_slurms_places() -> None:
    """`scontrol -d show job|node` adds DerivedExitCode, JOB_GRES and the per-node allocation,
    GresDrain; the diff against the plain record is real Slurm's, position and all."""
    job = JOBS["running"]
    real_job = _added_lines(*((DATA / f"scontrol{d}_job.txt").read_text() for d in ("", "_d")))
    ours_job = _added_lines(scontrol_show.show_job(job, 1796315660), scontrol_show.show_job(job, 1796315660,
                                                                                          details=True))
    assert ours_job == real_job == ["+    DerivedExitCode=0:0", "+    JOB_GRES=(null)",
                                    "+      Nodes=localhost CPU_IDs=0 Mem=1024 GRES="]
    plain, detailed = (scontrol_show.show_job(job, 0).splitlines(), scontrol_show.show_job(job, 0, details=True)
                       .splitlines())
    real_plain, real_detailed = ((DATA / f"scontrol{d}_job.txt").read_text().splitlines() for d in ("", "_d"))
    # the lines before each addition are the same records' lines (ExitCode=..., Socks/Node=...)
    for added in ("   DerivedExitCode=0:0", "   JOB_GRES=(null)"):
        ours_before = detailed[detailed.index(added) - 1].split("=")[0]
        real_before = real_detailed[real_detailed.index(added) - 1].split("=")[0]
        assert ours_before == real_before, (ours_before, real_before)
    assert len(detailed) - len(plain) == len(real_detailed) - len(real_plain) == 3
    real_node = _added_lines(*((DATA / f"scontrol{d}_node.txt").read_text() for d in ("", "_d")))
    ours_node = _added_lines(scontrol_show.show_nodes([NODE]), scontrol_show.show_nodes([NODE], details=True))
    assert ours_node == real_node == ["+    GresDrain=N/A"]


def test_details_group_nodes_granted_alike_and_show_gpus() -> None:
    job = JobInfo(job_id=9, state="RUNNING", node_names=["n1", "n2", "n3"], cpus_per_node=[2, 2, 1],
                  node_cpu_ids=["0-1", "0-1", "3"], node_memory_mb=[100, 100, 50], node_gpu_ids=["0", "0", ""],
                  gpus=2)
    detail = [line for line in scontrol_show.show_job(job, 0, details=True).splitlines()
              if "JOB_GRES" in line or "CPU_IDs" in line]
    assert detail == ["   JOB_GRES=gpu:2", "     Nodes=n[1-2] CPU_IDs=0-1 Mem=100 GRES=gpu:1(IDX:0)",
                      "     Nodes=n3 CPU_IDs=3 Mem=50 GRES="]


def test_sacct_records_have_slurms_keys_order_and_types() -> None:
    from cli import sacct_json
    from pyslurm_common.rpc import messages as pb

    real = {j["name"]: j for j in _oracle("sacct")[1]["jobs"]}
    runner_id = real["runner"]["job_id"]
    job = pb.JobInfo(job_id=runner_id, name="runner", state="CANCELLED", cancelled=True, time_limit_min=10,
                  eligible_time=1796315914, start_time=1796315917, end_time=1796315920, nodes="localhost", **BASE)
    batch = pb.StepInfo(job_id=runner_id, step_id="batch", name="batch", state="CANCELLED", exit_signal=15,
                        start_time=1796315917, end_time=1796315921, nodes="localhost", num_cpus=1, num_tasks=1,
                        max_rss_kb=1244, max_rss_node="localhost", user_cpu_usec=3596)
    held = pb.JobInfo(job_id=runner_id + 1, name="held", state="CANCELLED", cancelled=True, reason="JobHeldUser",
                   end_time=1796315920, **BASE)
    ours = sacct_json.document([pb.JobRecord(cluster="anchor", job=job, steps=[batch], alloc_cpus=1),
                                pb.JobRecord(cluster="anchor", job=held)], 1796316000)["jobs"]
    for mine, theirs in zip(ours, (real["runner"], real["held"])):
        assert _shape(mine) == _shape(theirs)
        assert (mine["tres"], mine["flags"], mine["nodes"]) == (theirs["tres"], theirs["flags"], theirs["nodes"])
    step, real_step = ours[0]["steps"][0], real["runner"]["steps"][0]
    assert (step["step"], step["exit_code"], step["tres"]["allocated"]) == (
        real_step["step"], real_step["exit_code"], real_step["tres"]["allocated"])


def test_a_line_break_in_a_single_quoted_scalar() -> None:
    """What real squeue --yaml printed for --comment $'first line\\nsecond' (seen on the oracle):
    the break becomes an empty line, the text goes on indented."""
    lines = yaml_text([{"comment": "first line\nsecond"}]).splitlines()
    assert lines[3:6] == ["  !!str comment: !!str 'first line", "", "    second'"]
