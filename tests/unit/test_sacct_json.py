"""sacct --json (cli.sacct_json), the flags sacct sends to the accounting daemon, and what an
unreachable daemon looks like."""

from __future__ import annotations

import json

import pytest
from cli import client, sacct, sacct_database, sacct_json
from cli.app import CliError
from pyslurm_common.rpc import messages as pb

NOW = 5000


def _record() -> "pb.JobRecord":
    job = pb.JobInfo(job_id=42, name="train", user_name="alice", group_name="lab", account="ml", partition="gpu",
                     qos="normal", state="FAILED", reason="NonZeroExitCode", num_nodes=1, num_cpus=4,
                     mem_per_node_mb=2048, time_limit_min=60, submit_time=1000, eligible_time=1000,
                     start_time=1010, end_time=1070, nodes="node1", exit_code=3, work_dir="/home/alice",
                     priority=7, gpus=1)
    steps = [pb.StepInfo(job_id=42, step_id="batch", name="batch", state="FAILED", exit_code=3, start_time=1010,
                         end_time=1070, nodes="node1", num_cpus=4, num_tasks=1, max_rss_kb=1024,
                         user_cpu_usec=1_500_000, system_cpu_usec=250_000),
             pb.StepInfo(job_id=42, step_id="0", name="python", state="CANCELLED", exit_signal=9,
                         start_time=1020, end_time=1060, nodes="node1", num_cpus=4, num_tasks=2)]
    return pb.JobRecord(cluster="lab", job=job, steps=steps, alloc_cpus=4)


def test_document_layout_and_job_fields() -> None:
    doc = sacct_json.document([_record()], NOW)
    assert doc["errors"] == [] and doc["meta"]["Slurm"]["release"] == "22.05.8"
    (job,) = doc["jobs"]
    assert (job["job_id"], job["name"], job["user"], job["group"], job["account"], job["partition"]) == (
        42, "train", "alice", "lab", "ml", "gpu")
    assert job["state"] == {"current": "FAILED", "reason": "NonZeroExitCode"}
    assert job["exit_code"] == {"status": "FAILED", "return_code": 3}
    # from the srun steps only, as Slurm's (the batch step's status is the job's ExitCode)
    assert job["derived_exit_code"] == {"status": "SIGNALED", "return_code": None,
                                        "signal": {"signal_id": 9, "name": "Killed"}}
    assert job["time"]["elapsed"] == 60 and job["time"]["limit"] == 60
    assert (job["time"]["submission"], job["time"]["start"], job["time"]["end"]) == (1000, 1010, 1070)
    assert job["time"]["total"] == {"seconds": 1, "microseconds": 750_000}
    assert job["tres"]["requested"] == [
        {"type": "cpu", "name": None, "id": 1, "count": 4}, {"type": "mem", "name": None, "id": 2, "count": 2048},
        {"type": "node", "name": None, "id": 4, "count": 1}, {"type": "billing", "name": None, "id": 5, "count": 4},
        {"type": "gres", "name": "gpu", "id": 1001, "count": 1}]
    json.dumps(doc)  # serializable as it is


def test_steps_carry_ids_states_and_signals() -> None:
    batch, step0 = sacct_json.document([_record()], NOW)["jobs"][0]["steps"]
    assert batch["step"] == {"job_id": 42, "het": {"component": None}, "id": "batch", "name": "batch"}
    assert step0["step"]["id"] == "0"
    assert step0["exit_code"] == {"status": "SIGNALED", "return_code": None,
                                  "signal": {"signal_id": 9, "name": "Killed"}}
    assert (step0["tasks"], step0["nodes"]["list"], step0["time"]["elapsed"]) == ({"count": 2}, ["node1"], 40)


def test_steps_report_their_gpus_usage_as_gres_tres() -> None:
    record = _record()
    record.steps[0].gpus.add(node="node1", index=0, samples=4, util_ave=60, util_max=97, mem_max_bytes=2**30)
    batch, step0 = sacct_json.document([record], NOW)["jobs"][0]["steps"]
    gres = {key: [(t["name"], t["count"]) for t in items if t["type"] == "gres"]
            for key, items in batch["tres"]["requested"].items()}
    assert gres == {"max": [("gpumem", 2**30), ("gpuutil", 97)], "min": [],
                    "average": [("gpumem", 2**30), ("gpuutil", 60)], "total": [("gpumem", 2**30), ("gpuutil", 60)]}
    memory = [t for t in batch["tres"]["requested"]["max"] if t["type"] == "mem"]
    assert memory == [{"type": "mem", "name": None, "id": 2, "count": 1024 * 1024, "task": 0, "node": "node1"}]
    assert not any(t["type"] == "gres" for items in step0["tres"]["requested"].values() for t in items)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list["pb.AccountingQuery"]:
    queries: list[pb.AccountingQuery] = []

    def fake(method: str, request: "pb.AccountingQuery", reply_type: type, timeout: float = 60.0) -> object:
        queries.append(request)
        return pb.JobRecordBatch(records=[_record()])

    monkeypatch.setattr(client, "accounting", fake)
    return queries


def _invoke(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """sacct's exit status and stdout for `argv`."""
    try:
        sacct.sacct(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().out


def test_duplicates_flag_reaches_the_query(sent: list["pb.AccountingQuery"], capsys: pytest.CaptureFixture[str]) -> None:
    assert _invoke(["-j", "42", "-X", "-n", "-P", "-o", "JobID"], capsys)[1] == "42\n"
    assert _invoke(["-D", "-j", "42", "-X", "-n"], capsys)[0] == 0
    assert [q.duplicates for q in sent] == [False, True]


def test_account_and_qos_filters_reach_the_query(sent: list["pb.AccountingQuery"],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert _invoke(["-A", "Physics,chem", "-q", "high", "-n"], capsys)[0] == 0
    assert (list(sent[0].accounts), list(sent[0].qos)) == (["physics", "chem"], ["high"])


def test_json_flag_prints_the_document(sent: list["pb.AccountingQuery"], capsys: pytest.CaptureFixture[str]) -> None:
    code, output = _invoke(["--json", "-j", "42"], capsys)
    assert code == 0
    assert [job["job_id"] for job in json.loads(output)["jobs"]] == [42]


def test_unreachable_accounting_daemon_is_a_database_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    def down(*args: object, **kwargs: object) -> object:
        raise client.ConnectError("connection refused by 127.0.0.1:6819")

    monkeypatch.setattr(client, "accounting", down)
    monkeypatch.delenv("PYSLURM_DEBUG", raising=False)
    with pytest.raises(CliError) as err:
        sacct_database.call("QueryJobs", pb.AccountingQuery(), pb.JobRecordBatch)
    assert err.value.lines == ("Problem talking to the database: Connection refused",)


def test_nodelist_reaches_the_query_expanded(sent: list["pb.AccountingQuery"],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert _invoke(["-N", "n[1-2],gpu3", "-n"], capsys)[0] == 0
    assert _invoke(["-n"], capsys)[0] == 0
    assert [list(q.nodes) for q in sent] == [["n1", "n2", "gpu3"], []]
