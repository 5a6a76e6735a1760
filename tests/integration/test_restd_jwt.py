"""auth/jwt through pyslurmrestd as systemd runs it (the unprivileged user slurmrestd, no key):
tokens from `scontrol token`, verified by the local auth agent, which signs for the token's
user; Slurm's answers for bad, expired and missing tokens; and a session of the `slurmrestapi`
client (generated from Slurm 25.11's OpenAPI document) as an ordinary user, refused as the CLI
is for another user's job."""
from __future__ import annotations

import time
from typing import Iterator

import pytest
import slurmrestapi
from slurmrestapi.exceptions import ApiException

from tests import restd_contract as contract
from tests.integration.conftest import Cluster, wait_for
from tests.integration.restd_support import RestClient, serving
from tests.integration.test_restd import checked


@pytest.fixture(scope="module")
def port(cluster: Cluster) -> Iterator[int]:
    with serving(cluster) as served:
        yield served


def token(cluster: Cluster, user: str | None, *args: str) -> str:
    out = cluster.run("scontrol", "token", *args, user=user, check=True).stdout.strip()
    return out.removeprefix("SLURM_JWT=")


def test_token_round_trip(cluster: Cluster, port: int) -> None:
    alice = RestClient(port=port).with_headers(token=token(cluster, "alice"))
    ping = checked(alice.get("/slurm/v0.0.44/ping/"), "slurm-ping")
    assert ping.status == 200 and ping.json["meta"]["client"]["user"] == "alice"
    submitted = checked(alice.request("POST", "/slurm/v0.0.44/job/submit", {
        "script": "#!/bin/bash\ntrue\n",
        "job": {"current_working_directory": str(cluster.work_dir("alice")), "environment": ["PATH=/bin"]}}))
    assert submitted.status == 200, submitted
    assert cluster.job_field(submitted.json["job_id"], "u") == "alice"     # signed for the token's user
    bearer = RestClient(port=port).with_headers(Authorization=f"Bearer {token(cluster, 'bob')}")
    assert bearer.get("/slurmdb/v0.0.44/ping/").json["meta"]["client"]["user"] == "bob"


@pytest.mark.parametrize("version", ("v0.0.44", "v0.0.43"))
def test_bad_expired_and_missing_tokens(cluster: Cluster, port: int, version: str) -> None:
    anonymous = RestClient(port=port).get(f"/slurm/{version}/jobs/")
    assert (anonymous.status, anonymous.content_type, anonymous.text) == (
        500, "text/plain", "Authentication does not apply to request")
    named_only = RestClient(port=port).with_headers(user="alice").get(f"/slurm/{version}/jobs/")
    assert (named_only.status, named_only.text) == (500, "Authentication does not apply to request")
    forged = token(cluster, "alice")[:-4] + "AAAA"
    short_lived = token(cluster, "alice", "lifespan=1")
    time.sleep(2)
    for bad, recorded in ((forged, "slurm-jwt-invalid-token"), (short_lived, "slurm-jwt-expired-token")):
        answer = checked(RestClient(port=port).with_headers(token=bad).get(f"/slurm/{version}/jobs/"), recorded)
        assert answer.status == 511
        assert answer.json["errors"][0] == contract.recorded(version, recorded)["errors"][0]


def test_a_token_speaks_only_for_its_user_unless_root(cluster: Cluster, port: int) -> None:
    as_bob = RestClient(port=port).with_headers(token=token(cluster, "alice"), user="bob")
    refused = checked(as_bob.get("/slurm/v0.0.44/jobs/"))
    assert (refused.status, refused.json["errors"][0]["error_number"]) == (511, 1007)
    root_as_bob = RestClient(port=port).with_headers(token=token(cluster, None), user="bob")
    job = checked(root_as_bob.request("POST", "/slurm/v0.0.44/job/submit", {
        "script": "#!/bin/bash\ntrue\n", "job": {"current_working_directory": "/tmp", "environment": ["PATH=/bin"]}}))
    assert job.status == 200 and cluster.job_field(job.json["job_id"], "u") == "bob"


def test_generated_client_session(cluster: Cluster, port: int) -> None:
    config = slurmrestapi.Configuration(host=f"http://127.0.0.1:{port}",
                                        api_key={"token": token(cluster, "alice"), "user": "alice"})
    with slurmrestapi.ApiClient(config) as client:
        slurm, slurmdb = slurmrestapi.SlurmApi(client), slurmrestapi.SlurmdbApi(client)
        assert slurm.slurm_v0044_get_ping().pings[0].responding
        request = slurmrestapi.V0044JobSubmitReq(script="#!/bin/bash\nsleep 30\n", job=slurmrestapi.V0044JobDescMsg(
            name="generated", current_working_directory=str(cluster.work_dir("alice")), environment=["PATH=/bin"],
            time_limit=slurmrestapi.V0044Uint32NoValStruct(set=True, number=10), hold=True))
        job_id = slurm.slurm_v0044_post_job_submit(request).job_id
        job = slurm.slurm_v0044_get_job(str(job_id)).jobs[0]
        assert (job.name, job.user_name, job.job_state) == ("generated", "alice", ["PENDING"])
        slurm.slurm_v0044_post_job(str(job_id), slurmrestapi.V0044JobDescMsg(
            time_limit=slurmrestapi.V0044Uint32NoValStruct(set=True, number=5), hold=False))
        assert slurm.slurm_v0044_get_job(str(job_id)).jobs[0].time_limit.number == 5
        assert any(n.name == "node1" for n in slurm.slurm_v0044_get_nodes().nodes)
        assert slurm.slurm_v0044_get_partition("debug").partitions[0].name == "debug"
        assert slurmdb.slurmdb_v0044_get_qos().qos[0].name == "normal"
        slurm.slurm_v0044_delete_job(str(job_id))
        wait_for(lambda: slurm.slurm_v0044_get_job(str(job_id)).jobs[0].job_state[0] == "CANCELLED", 30)

        bobs = cluster.sbatch("--hold", "--wrap", "true", user="bob")
        scancel = cluster.run("scancel", str(bobs), user="alice")
        with pytest.raises(ApiException) as refused:
            slurm.slurm_v0044_delete_job(str(bobs))
        assert refused.value.status == 422 and "Access/permission denied" in str(refused.value.body)
        assert "Access/permission denied" in scancel.stderr
        with pytest.raises(ApiException) as refused_update:
            slurm.slurm_v0044_post_job(str(bobs), slurmrestapi.V0044JobDescMsg(hold=False))
        assert refused_update.value.status == 422
        assert cluster.job_field(bobs, "T") == "PENDING"
        with pytest.raises(ApiException) as unknown:
            slurm.slurm_v0044_get_job("4000000")
        assert unknown.value.status == 404
    cluster.run("scancel", str(bobs), user="bob", check=True)


@pytest.mark.parametrize("version", ("v0.0.44", "v0.0.43"))
def test_writes_as_operator_and_as_user_match_the_contract(cluster: Cluster, port: int, version: str) -> None:
    root = RestClient(port=port).with_headers(token=token(cluster, None))
    alice = RestClient(port=port).with_headers(token=token(cluster, "alice"))
    refused = checked(alice.request("POST", f"/slurm/{version}/node/node2", {"state": ["DRAIN"], "reason": "x"}))
    # slurmctld refuses a user's node update with ESLURM_USER_ID_MISSING (2010, "Invalid user id",
    # as real scontrol prints it), and slurmrestd passes the controller's error number on.
    assert (refused.status, refused.json["errors"][0]["error_number"]) == (422, 2010)
    drained = checked(root.request("POST", f"/slurm/{version}/node/node2", {"state": ["DRAIN"], "reason": "disk"}))
    assert drained.status == 200, drained
    node = checked(root.get(f"/slurm/{version}/node/node2")).json["nodes"][0]
    assert "DRAIN" in node["state"] and node["reason"] == "disk"
    assert checked(root.request("POST", f"/slurm/{version}/node/node2", {"state": "RESUME"})).status == 200
    wait_for(lambda: "DRAIN" not in root.get(f"/slurm/{version}/node/node2").json["nodes"][0]["state"], 20)
    # IDLE (what Slinky's operator sends to undrain): Slurm clears DRAIN and FAIL, as RESUME does
    checked(root.request("POST", f"/slurm/{version}/node/node2", {"state": ["DRAIN"], "reason": "again"}))
    assert checked(root.request("POST", f"/slurm/{version}/node/node2", {"state": ["IDLE"]})).status == 200
    wait_for(lambda: "DRAIN" not in root.get(f"/slurm/{version}/node/node2").json["nodes"][0]["state"], 20)
    submitted = checked(alice.request("POST", f"/slurm/{version}/job/submit", {
        "script": "#!/bin/bash\nsleep 30\n",
        "job": {"current_working_directory": "/tmp", "environment": ["PATH=/bin"], "hold": True}}))
    job_id = submitted.json["job_id"]
    assert checked(alice.request("POST", f"/slurm/{version}/job/{job_id}", {"priority": 0})).status == 422
    bulk = checked(alice.request("DELETE", f"/slurm/{version}/jobs/", {"jobs": [job_id]}))
    assert bulk.status == 200 and bulk.json["status"][0]["error"]["code"] == 0
    wait_for(lambda: cluster.job_field(job_id, "T") in ("CANCELLED", ""), 20)


def test_allocation_is_held_until_cancelled(cluster: Cluster, port: int) -> None:
    alice = RestClient(port=port).with_headers(token=token(cluster, "alice"))
    allocated = checked(alice.request("POST", "/slurm/v0.0.44/job/allocate", {
        "job": {"name": "alloc", "current_working_directory": "/tmp", "tasks": 1, "time_limit": 5}}))
    assert allocated.status == 200, allocated
    job_id = allocated.json["job_id"]
    cluster.wait_state(job_id, "RUNNING")
    job = checked(alice.get(f"/slurm/v0.0.44/job/{job_id}")).json["jobs"][0]
    assert (job["batch_flag"], job["user_name"], job["job_state"]) == (False, "alice", ["RUNNING"])
    assert checked(alice.request("DELETE", f"/slurm/v0.0.44/job/{job_id}")).status == 200
    wait_for(lambda: cluster.job_field(job_id, "T") in ("CANCELLED", ""), 20)
    with_script = checked(alice.request("POST", "/slurm/v0.0.44/job/allocate", {
        "script": "#!/bin/bash\ntrue\n", "job": {"current_working_directory": "/tmp"}}))
    assert with_script.status == 400


def test_kill_filters_and_flags_it_cannot_honour_are_refused(cluster: Cluster, port: int) -> None:
    alice = RestClient(port=port).with_headers(token=token(cluster, "alice"))
    job_id = cluster.sbatch("--hold", "--wrap", "true", user="alice")
    filtered = checked(alice.request("DELETE", "/slurm/v0.0.44/jobs/", {"jobs": [job_id], "partition": "gpu"}))
    assert filtered.status == 422 and "partition" in filtered.json["errors"][0]["description"]
    hurried = checked(alice.request("DELETE", f"/slurm/v0.0.44/job/{job_id}?flags=HURRY"))
    assert hurried.status == 422 and "HURRY" in hurried.json["errors"][0]["description"]
    assert cluster.job_field(job_id, "T") == "PENDING"                  # nothing was signalled
    cluster.run("scancel", str(job_id), user="alice", check=True)


def test_unsupported_node_fields_and_accounting_filters_are_refused(cluster: Cluster, port: int) -> None:
    root = RestClient(port=port).with_headers(token=token(cluster, None))
    weight = checked(root.request("POST", "/slurm/v0.0.44/node/node1", {"state": ["DRAIN"], "weight": 5}))
    assert weight.status == 422 and "weight" in weight.json["errors"][0]["description"]
    assert "DRAIN" not in root.get("/slurm/v0.0.44/node/node1").json["nodes"][0]["state"]
    by_reason = checked(root.get("/slurmdb/v0.0.44/jobs/?reason=Priority"))
    assert by_reason.status == 422 and "reason" in by_reason.json["errors"][0]["description"]
    assert checked(root.get("/slurmdb/v0.0.44/jobs/?users=alice")).status == 200


@pytest.mark.parametrize("version", ("v0.0.44", "v0.0.43"))
def test_node_comment_and_extra_one_node_or_many(cluster: Cluster, port: int, version: str) -> None:
    """What Slinky's operator writes on nodes: comment and extra, alone or with a state, through
    node/{name} and through nodes/ (a hostlist in `name`); read back on every node named."""
    root = RestClient(port=port).with_headers(token=token(cluster, None))
    alice = RestClient(port=port).with_headers(token=token(cluster, "alice"))
    one = checked(root.request("POST", f"/slurm/{version}/node/node1", {"comment": "new disk", "extra": '{"rack": 4}'}))
    assert one.status == 200, one
    node = checked(root.get(f"/slurm/{version}/node/node1")).json["nodes"][0]
    assert (node["comment"], node["extra"]) == ("new disk", '{"rack": 4}')
    many = checked(root.request("POST", f"/slurm/{version}/nodes/", {"name": ["node[1-2]"], "comment": "checked",
                                                                     "state": ["DRAIN"], "reason": "audit"}))
    assert many.status == 200, many
    nodes = {n["name"]: n for n in checked(root.get(f"/slurm/{version}/nodes/")).json["nodes"]}
    assert [(nodes[n]["comment"], nodes[n]["extra"], "DRAIN" in nodes[n]["state"]) for n in ("node1", "node2")] == [
        ("checked", '{"rack": 4}', True), ("checked", "", True)]
    refused = checked(alice.request("POST", f"/slurm/{version}/nodes/", {"name": ["node1"], "comment": "mine"}))
    assert refused.status == 422
    features = checked(root.request("POST", f"/slurm/{version}/node/node1", {"features": ["ssd"]}))
    assert features.status == 422 and "features" in features.json["errors"][0]["description"]
    for name in ("node1", "node2"):
        checked(root.request("POST", f"/slurm/{version}/node/{name}", {"state": ["IDLE"], "comment": "", "extra": ""}))
    wait_for(lambda: all("DRAIN" not in n["state"] and not n["comment"]
                         for n in root.get(f"/slurm/{version}/nodes/").json["nodes"]), 20)


def test_slurmdb_job_filters_as_sacct_applies_them(cluster: Cluster, port: int) -> None:
    root = RestClient(port=port).with_headers(token=token(cluster, None))
    named = cluster.sbatch("-J", "restfilter", "-w", "node2", "--wrap", "true", user="alice")
    pending = cluster.sbatch("-J", "restbegin", "--begin=now+1hour", "--wrap", "true", user="alice")
    wait_for(lambda: cluster.job_field(named, "T") in ("COMPLETED", ""), 30)

    def ids(query: str) -> list[int]:
        answer = checked(root.get(f"/slurmdb/v0.0.44/jobs/?{query}"))
        assert answer.status == 200, answer
        return sorted(j["job_id"] for j in answer.json["jobs"])

    def records(query: str) -> list[dict[str, object]]:
        return [j for j in checked(root.get(f"/slurmdb/v0.0.44/jobs/?{query}")).json["jobs"] if j["job_id"] == named]

    wait_for(lambda: records("job_name=restfilter") and records("job_name=restfilter")[0]["steps"], 30)
    # A job pending on --begin is not in a window that ends now (eligible later): real sacct 22.05
    # left it out of `sacct -X --name=...` too; named by its id it is there, as `sacct -j` shows it.
    assert ids("job_name=restfilter,restbegin") == [named]
    by_id = wait_for(lambda: checked(root.get(f"/slurmdb/v0.0.44/job/{pending}")).json["jobs"], 30)
    assert by_id[0]["state"]["current"] == ["PENDING"]  # type: ignore[index]
    assert named in ids("node=node[2-3]") and named not in ids("node=node1")
    assert named in ids(f"qos={records('job_name=restfilter')[0]['qos']}&job_name=restfilter")
    assert records("job_name=restfilter&skip_steps=true")[0]["steps"] == []
    assert records("job_name=restfilter&skip_steps=false")[0]["steps"]
    assert named in ids("job_name=restfilter&format=JobID&whole_hetjob=true")
    assert ids(f"cluster={cluster.spec.cluster_name}&job_name=restfilter") == [named]
    elsewhere = checked(root.get("/slurmdb/v0.0.44/jobs/?cluster=elsewhere"))
    assert elsewhere.json["jobs"] == [] and elsewhere.json["warnings"][0]["source"] == "_dump_jobs"
    assert checked(root.get("/slurmdb/v0.0.44/jobs/?skip_steps=maybe")).status == 422
    cluster.run("scancel", str(pending), user="alice", check=True)


@pytest.mark.parametrize("version", ("v0.0.44", "v0.0.43"))
def test_slurmdb_diag_is_the_accounting_daemons_statistics_for_administrators(cluster: Cluster, port: int,
                                                                             version: str) -> None:
    alice = RestClient(port=port).with_headers(token=token(cluster, "alice"))
    assert checked(alice.get(f"/slurmdb/{version}/jobs/")).status == 200
    refused = checked(alice.get(f"/slurmdb/{version}/diag/"))
    assert [e["error"] for e in refused.json["errors"]] == ["Access/permission denied"]
    root = RestClient(port=port).with_headers(token=token(cluster, None))
    diag = checked(root.get(f"/slurmdb/{version}/diag/"))
    assert diag.status == 200 and diag.json["errors"] == []
    statistics = diag.json["statistics"]
    rpcs = {r["rpc"]: r for r in statistics["RPCs"]}
    assert rpcs["QueryJobs"]["count"] >= 1
    assert rpcs["QueryJobs"]["time"]["total"] >= rpcs["QueryJobs"]["time"]["average"] > 0
    assert "alice" in {u["user"] for u in statistics["users"]}
    assert statistics["rollups"]["hourly"]["count"] >= 1      # the daemon rolls up at start
    assert 0 < statistics["time_start"] <= time.time()


def test_concurrent_readers_share_one_answer_each_with_its_own_meta(cluster: Cluster, port: int) -> None:
    """20 readers of alice's at once (bench/bench_rest_readers.py times 100 on 1,000 jobs): every
    answer lists the same jobs, gzip-compressed for the readers that take gzip, plain for the
    others, and names its own connection in meta."""
    import gzip
    import http.client
    import json
    from concurrent.futures import ThreadPoolExecutor

    alice = token(cluster, "alice")
    held = [cluster.sbatch("--hold", "--wrap", "true", user="alice") for _ in range(3)]

    def read(index: int) -> tuple[str, list[int], str]:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        encoding = "gzip, deflate" if index % 2 else "identity"
        conn.request("GET", "/slurm/v0.0.44/jobs/", headers={"X-SLURM-USER-TOKEN": alice, "Accept-Encoding": encoding})
        response = conn.getresponse()
        body, coding = response.read(), response.getheader("Content-Encoding") or ""
        conn.close()
        contract.validate("GET", "/slurm/v0.0.44/jobs/", response.status, (gzip.decompress(body) if coding else body).decode())
        document = json.loads(gzip.decompress(body) if coding else body)
        return coding, sorted(j["job_id"] for j in document["jobs"]), document["meta"]["client"]["source"]

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(read, range(20)))
    assert [coding for coding, _, _ in answers] == ["", "gzip"] * 10
    assert len({tuple(ids) for _, ids, _ in answers}) == 1 and set(held) <= set(answers[0][1])
    assert len({source for _, _, source in answers}) == 20
    for job_id in held:
        cluster.run("scancel", str(job_id), user="alice", check=True)


def _show_job(cluster: Cluster, job_id: int) -> dict[str, str]:
    out = cluster.run("scontrol", "show", "job", str(job_id), check=True).stdout
    return dict(word.split("=", 1) for word in out.split() if "=" in word)


# What differs between any two submissions: ids, names, times, the command and how it was given.
_PER_SUBMISSION = {"JobId", "JobName", "SubmitTime", "EligibleTime", "AccrueTime", "StartTime", "EndTime",
                   "LastSchedEval", "Command", "SubmitLine", "Priority", "BatchFlag"}


def test_submit_with_sbatchs_options_makes_the_job_sbatch_makes(cluster: Cluster, port: int) -> None:
    """The same request through POST job/submit and through sbatch: scontrol shows the same job."""
    alice = RestClient(port=port).with_headers(token=token(cluster, "alice"))
    work = str(cluster.work_dir("alice"))
    submitted = checked(alice.request("POST", "/slurm/v0.0.44/job/submit", {
        "script": "#!/bin/bash\ntrue\n",
        "job": {"name": "same", "current_working_directory": work, "environment": ["PATH=/bin"], "hold": True,
                "nodes": "1", "tasks_per_node": 2, "comment": "calibration run", "open_mode": ["APPEND"],
                "mail_type": ["END", "FAIL"], "mail_user": "alice@example.org", "time_limit": 10,
                "time_minimum": {"set": True, "number": 5}, "kill_warning_signal": "USR1",
                "kill_warning_delay": {"set": True, "number": 30}, "kill_on_node_fail": False,
                "contiguous": True, "standard_output": "/dev/null", "partition": "debug",
                "burst_buffer": "", "x11": []}}))
    assert submitted.status == 200, submitted
    rest_job = submitted.json["job_id"]
    script = cluster.work_dir("alice") / "same.sh"
    script.write_text("#!/bin/bash\ntrue\n")
    sbatch_job = cluster.sbatch("-J", "same", "-D", work, "--hold", "-N", "1", "--ntasks-per-node=2",
                                "--comment=calibration run", "--open-mode=append", "--mail-type=END,FAIL",
                                "--mail-user=alice@example.org", "-t", "10", "--time-min=5", "--signal=USR1@30",
                                "--no-kill", "--contiguous", "-o", "/dev/null", "-p", "debug", str(script),
                                user="alice")
    ours, sbatchs = _show_job(cluster, rest_job), _show_job(cluster, sbatch_job)
    differing = {k: (ours.get(k), sbatchs.get(k)) for k in ours.keys() | sbatchs.keys()
                 if k not in _PER_SUBMISSION and ours.get(k) != sbatchs.get(k)}
    assert differing == {}
    assert (ours["Comment"], ours["MailType"], ours["TimeMin"], ours["NumTasks"]) == (
        "calibration", "END,FAIL", "00:05:00", "2")
    for job_id in (rest_job, sbatch_job):
        cluster.run("scancel", str(job_id), user="alice", check=True)


def test_job_update_sets_the_comment_as_scontrol_does(cluster: Cluster, port: int) -> None:
    alice = RestClient(port=port).with_headers(token=token(cluster, "alice"))
    job_id = cluster.sbatch("--hold", "--comment=first", "--wrap", "true", user="alice")
    updated = checked(alice.request("POST", f"/slurm/v0.0.44/job/{job_id}", {"comment": "second try"}))
    assert updated.status == 200, updated
    assert "Comment=second try" in cluster.run("scontrol", "show", "job", str(job_id), check=True).stdout
    cluster.run("scontrol", "update", f"jobid={job_id}", "comment=third", user="alice", check=True)
    job = checked(alice.get(f"/slurm/v0.0.44/job/{job_id}")).json["jobs"][0]
    assert job["comment"] == "third"
    cluster.run("scancel", str(job_id), user="alice", check=True)


def test_reservations_created_updated_and_deleted_as_scontrol_would(cluster: Cluster, port: int) -> None:
    root = RestClient(port=port).with_headers(token=token(cluster, None))
    alice = RestClient(port=port).with_headers(token=token(cluster, "alice"))
    start = int(time.time()) + 86400
    desc = {"name": "restresv", "start_time": {"set": True, "number": start}, "duration": {"set": True, "number": 60},
            "node_list": ["node1"], "users": ["alice"], "flags": ["MAINT"], "burst_buffer": ""}
    refused = checked(alice.request("POST", "/slurm/v0.0.44/reservation", desc))
    assert refused.status == 422
    created = checked(root.request("POST", "/slurm/v0.0.44/reservation", desc))
    assert created.status == 200, created
    shown = cluster.run("scontrol", "show", "reservation", "restresv", check=True).stdout
    assert "Nodes=node1 " in shown and "Users=alice " in shown and "MAINT" in shown
    updated = checked(root.request("POST", "/slurm/v0.0.44/reservations/",
                                   {"reservations": [{"name": "RESTRESV", "users": ["alice", "bob"]}]}))
    assert updated.status == 200, updated
    assert "Users=alice,bob " in cluster.run("scontrol", "show", "reservation", "restresv", check=True).stdout
    bad = checked(root.request("POST", "/slurm/v0.0.44/reservation", {"name": "other", "node_list": ["node1"]}))
    assert bad.status == 422 and "A start time must be given." in bad.json["errors"][0]["description"]
    unsupported = checked(root.request("POST", "/slurm/v0.0.44/reservation", {**desc, "features": "ssd"}))
    assert unsupported.status == 422 and "features" in unsupported.json["errors"][0]["description"]
    assert checked(root.request("DELETE", "/slurm/v0.0.44/reservation/restresv")).status == 200
    assert "restresv" not in cluster.run("scontrol", "show", "reservation").stdout
    gone = checked(root.request("DELETE", "/slurm/v0.0.44/reservation/restresv"))
    assert gone.status == 422 and gone.json["errors"][0]["description"] == "Error deleting reservation restresv"
