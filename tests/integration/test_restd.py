"""pyslurmrestd against a real cluster: Slurm's paths and error contract, every answer checked
against Slurm 25.11's OpenAPI document (v0.0.44 and v0.0.43) and compared in shape with answers
recorded from a real slurmrestd; local (unix socket) auth with the CLI's permission rules."""
from __future__ import annotations

import subprocess
from typing import Iterator

import pytest

from tests import restd_contract as contract
from tests.integration.conftest import BIN, Cluster, free_port, wait_for
from tests.integration.restd_support import Answer, RestClient, restd

VERSIONS = ("v0.0.44", "v0.0.43")


@pytest.fixture(scope="module")
def local(cluster: Cluster) -> Iterator[tuple[RestClient, RestClient]]:
    """alice's own pyslurmrestd: rest_auth/local on a unix socket, and a TCP port it cannot
    authenticate anyone on."""
    socket_path = cluster.work_dir("alice") / "restd.socket"
    port = free_port()
    with restd(cluster, "alice", f"unix:{socket_path}", f"127.0.0.1:{port}", auth="rest_auth/local"):
        unix, tcp = RestClient(unix_path=str(socket_path)), RestClient(port=port)
        wait_for(lambda: socket_path.exists() and unix.up() and tcp.up(), 20)
        yield unix, tcp


def checked(answer: Answer, recorded: str | None = None) -> Answer:
    """The answer, after validating it against the document and comparing it with a recording."""
    assert answer.content_type == "application/json", answer
    contract.validate(answer.method, answer.path, answer.status, answer.text)
    version = answer.path.split("/")[2]
    assert answer.json["meta"]["plugin"]["data_parser"] == f"data_parser/{version}"
    if recorded is not None:
        assert contract.shape_differences(answer.json, contract.recorded(version, recorded)) == []
    return answer


@pytest.mark.parametrize("version", VERSIONS)
def test_reservations_as_the_document_says(cluster: Cluster, local: tuple[RestClient, RestClient],
                                           version: str) -> None:
    unix, _ = local
    cluster.run("scontrol", "create", "reservation", "ReservationName=rest", "StartTime=2030-01-02T10:00:00",
                "Duration=60", "Users=alice", "Nodes=node1", "Flags=MAINT", check=True)
    try:
        listed = checked(unix.get(f"/slurm/{version}/reservations/")).json["reservations"]
        one = checked(unix.get(f"/slurm/{version}/reservation/rest")).json["reservations"]
    finally:
        cluster.run("scontrol", "delete", "ReservationName=rest", check=True)
    assert listed == one and len(one) == 1
    assert (one[0]["name"], one[0]["node_list"], one[0]["users"], one[0]["flags"], one[0]["tres"]) == (
        "rest", "node1", "alice", ["MAINT", "SPEC_NODES"], "cpu=2")
    assert one[0]["end_time"]["number"] - one[0]["start_time"]["number"] == 3600


def test_unknown_path_is_slurms_plain_404(local: tuple[RestClient, RestClient]) -> None:
    unix, _ = local
    for path in ("/slurm/v0.0.44/nope", "/slurmdb/v0.0.43/nope/", "/slurm/v0.0.40/jobs/"):
        answer = unix.get(path)
        assert (answer.status, answer.content_type) == (404, "text/plain")
        assert answer.text == (contract.RECORDED / "0.0.44" / "slurm-not-found.txt").read_text().strip()


def test_tcp_without_credentials_is_refused(local: tuple[RestClient, RestClient]) -> None:
    _, tcp = local
    answer = tcp.get("/slurm/v0.0.44/jobs/")
    assert (answer.status, answer.content_type) == (500, "text/plain")
    assert answer.text == "Authentication does not apply to request"


@pytest.mark.parametrize("version", VERSIONS)
def test_every_read_endpoint_matches_the_contract(cluster: Cluster, local: tuple[RestClient, RestClient],
                                                  version: str) -> None:
    unix, _ = local
    job_id = cluster.sbatch("--wrap", "sleep 20", user="alice")
    cluster.wait_state(job_id, "RUNNING")
    recorded = {
        f"/slurm/{version}/ping/": "slurm-ping", f"/slurm/{version}/jobs/": "slurm-jobs",
        f"/slurm/{version}/job/{job_id}": "slurm-job-running", f"/slurm/{version}/nodes/": "slurm-nodes",
        f"/slurm/{version}/node/node1": "slurm-node-allocated", f"/slurm/{version}/partitions/": "slurm-partitions",
        f"/slurm/{version}/partition/debug": "slurm-partitions", f"/slurm/{version}/diag/": None,
        f"/slurm/{version}/licenses/": None, f"/slurm/{version}/reservations/": None,
        f"/slurm/{version}/jobs/state/?job_id={job_id}": None,
        f"/slurmdb/{version}/jobs/": None, f"/slurmdb/{version}/accounts/": "slurm-accounts",
        f"/slurmdb/{version}/associations/": "slurmdb-associations", f"/slurmdb/{version}/users/": None,
        f"/slurmdb/{version}/qos/": "slurm-qos", f"/slurmdb/{version}/tres/": None,
        f"/slurmdb/{version}/clusters/": None, f"/slurmdb/{version}/config": None, f"/slurmdb/{version}/ping/": None,
    }
    for path, name in recorded.items():
        answer = checked(unix.get(path), name)
        assert answer.status == 200, answer
        assert answer.json["errors"] == [], answer
    job = unix.get(f"/slurm/{version}/job/{job_id}").json["jobs"][0]
    assert (job["job_id"], job["user_name"], job["job_state"]) == (job_id, "alice", ["RUNNING"])
    assert job["job_resources"]["nodes"]["count"] == 1
    cores = [c["status"] for sk in job["job_resources"]["nodes"]["allocation"][0]["sockets"] for c in sk["cores"]]
    assert cores.count(["ALLOCATED"]) == 1 and len(cores) == 2        # one of node1's two cores
    cluster.run("scancel", str(job_id), user="alice", check=True)


@pytest.mark.parametrize("version", VERSIONS)
def test_unknown_job_is_404_with_error_2017(local: tuple[RestClient, RestClient], version: str) -> None:
    unix, _ = local
    answer = checked(unix.get(f"/slurm/{version}/job/4000000"), "slurm-job-unfound")
    assert answer.status == 404
    assert [(e["error_number"], e["error"]) for e in answer.json["errors"]] == [(2017, "Invalid job id specified")]


def _without_meta(answer: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in answer.items() if k != "meta"}


@pytest.mark.parametrize("version", VERSIONS)
def test_wckeys_and_instances_pyslurm_keeps_none_of(local: tuple[RestClient, RestClient], version: str) -> None:
    unix, _ = local
    wckeys = checked(unix.get(f"/slurmdb/{version}/wckeys/?user=alice"))
    assert (wckeys.status, wckeys.json["wckeys"], wckeys.json["warnings"]) == (
        200, [], [{"description": "slurmdb_wckeys_get() found nothing", "source": "_dump_wckeys"}])
    instances = unix.get(f"/slurmdb/{version}/instances/")     # nothing dumped: no `instances`, as slurmrestd
    assert (instances.status, "instances" in instances.json, instances.json["warnings"]) == (
        200, False, [{"description": "slurmdb_instances_get() found nothing", "source": "_dump_instance_cond"}])


@pytest.mark.parametrize("version", VERSIONS)
def test_unknown_node_and_accounting_job_are_200_as_recorded(local: tuple[RestClient, RestClient],
                                                             version: str) -> None:
    """What Slinky's operator reads as "not found": 200, an error entry numbered 0 (node) or a
    warning (slurmdb job), the rest of the answer as real slurmrestd's, field by field."""
    unix, _ = local
    node = unix.get(f"/slurm/{version}/node/unexisting-node")
    # slurmrestd leaves out `nodes` and `last_update` here, though its document requires them
    assert (node.status, node.content_type) == (200, "application/json")
    assert _without_meta(node.json) == _without_meta(contract.recorded(version, "slurm-node-unfound"))
    job = checked(unix.get(f"/slurmdb/{version}/job/4000000"), "slurmdb-job-unfound")
    assert job.status == 200
    assert _without_meta(job.json) == _without_meta(contract.recorded(version, "slurmdb-job-unfound"))


def test_unknown_reservation_as_slurmrestd_answers_it(cluster: Cluster, local: tuple[RestClient, RestClient]) -> None:
    """With no reservation at all, slurmrestd's load finds nothing (200, an entry numbered 0);
    with others, a name matching none (case aside) is a refused query (422)."""
    unix, _ = local
    none = unix.get("/slurm/v0.0.44/reservation/maint")    # without the keys, as the unknown node's
    assert none.status == 200 and "reservations" not in none.json
    assert none.json["errors"] == [{"description": "Unable to query reservations", "error_number": 0,
                                    "error": "No error", "source": "slurm_load_reservations()"}]
    cluster.run("scontrol", "create", "reservation", "ReservationName=Other", "StartTime=2030-01-02T10:00:00",
                "Duration=60", "Users=alice", "Nodes=node1", check=True)
    try:
        missing = checked(unix.get("/slurm/v0.0.44/reservation/maint"))
        same_but_case = checked(unix.get("/slurm/v0.0.44/reservation/other"))
    finally:
        cluster.run("scontrol", "delete", "ReservationName=Other", check=True)
    assert missing.status == 422
    assert missing.json["errors"] == [{"description": "Unable to find reservation maint", "error_number": 9000,
                                       "error": "Query empty or not RFC7320 compliant",
                                       "source": "_get_single_reservation"}]
    assert [r["name"] for r in same_but_case.json["reservations"]] == ["Other"]


def test_bodies_json_c_would_not_parse_are_slurmrestds_plain_400(local: tuple[RestClient, RestClient]) -> None:
    unix, _ = local
    for raw in (b'{"job":' * 100_000 + b"{}" + b"}" * 100_000, b"{not json", b'{"a":' * 32 + b"{}" + b"}" * 32):
        answer = unix.request("POST", "/slurm/v0.0.44/job/submit", raw=raw)
        assert (answer.status, answer.content_type, answer.text) == (400, "text/plain", "Failure during parsing")
    assert unix.up()                     # and the daemon serves on


def test_a_script_over_max_script_size_is_refused_as_slurmctld_refuses_it(cluster: Cluster,
                                                                            local: tuple[RestClient, RestClient]) -> None:
    """4.5 MB: over the 4 MB default. Real sbatch 22.05 printed for the same script:
    `sbatch: error: Batch job submission failed: Pathname of a file, directory or other parameter too long`."""
    unix, _ = local
    script = "#!/bin/bash\ntrue\n" + ("# " + "x" * 98 + "\n") * 46_000
    answer = checked(unix.request("POST", "/slurm/v0.0.44/job/submit", {
        "script": script, "job": {"current_working_directory": "/tmp", "environment": ["PATH=/bin"]}}))
    assert answer.status == 422
    assert [(e["error_number"], e["error"]) for e in answer.json["errors"]] == [
        (2012, "Pathname of a file, directory or other parameter too long")]
    path = cluster.work_dir("alice") / "big.sh"
    path.write_text(script)
    sbatch = cluster.run("sbatch", "--hold", str(path), user="alice")
    assert (sbatch.returncode, sbatch.stderr.strip()) == (
        1, "sbatch: error: Batch job submission failed: Pathname of a file, directory or other parameter too long")


def test_submit_update_cancel_own_job_and_refusals_for_another_users(cluster: Cluster,
                                                                      local: tuple[RestClient, RestClient]) -> None:
    unix, _ = local
    work = cluster.work_dir("alice")
    submitted = checked(unix.request("POST", "/slurm/v0.0.44/job/submit", {
        "script": "#!/bin/bash\nsleep 30\n",
        "job": {"name": "rest", "current_working_directory": str(work), "environment": ["PATH=/usr/bin:/bin"],
                "time_limit": {"set": True, "infinite": False, "number": 10}, "hold": True}}))
    assert submitted.status == 200, submitted
    job_id = submitted.json["job_id"]
    assert cluster.job_field(job_id, "u") == "alice"          # the job is alice's: rest_auth/local
    assert cluster.job_field(job_id, "l") == "10:00"
    updated = checked(unix.request("POST", f"/slurm/v0.0.44/job/{job_id}", {"time_limit": 5, "hold": False}))
    assert updated.status == 200, updated
    assert cluster.job_field(job_id, "l") == "5:00"
    cluster.wait_state(job_id, "RUNNING")
    cancelled = checked(unix.request("DELETE", f"/slurm/v0.0.44/job/{job_id}"))
    assert cancelled.status == 200, cancelled
    wait_for(lambda: cluster.job_field(job_id, "T") in ("CANCELLED", ""), 20)

    bobs = cluster.sbatch("--hold", "--wrap", "sleep 5", user="bob")
    scancel = cluster.run("scancel", str(bobs), user="alice")
    refused = checked(unix.request("DELETE", f"/slurm/v0.0.44/job/{bobs}"))
    assert refused.status == 422
    error = refused.json["errors"][0]
    assert (error["error_number"], error["error"]) == (2002, "Access/permission denied")
    assert "Access/permission denied" in scancel.stderr       # the same refusal as the CLI's
    refused_update = checked(unix.request("POST", f"/slurm/v0.0.44/job/{bobs}", {"time_limit": 1}))
    # another user's job is update_job's `Invalid user id` (2010), as in scontrol
    assert (refused_update.status, refused_update.json["errors"][0]["error_number"]) == (422, 2010)
    assert cluster.job_field(bobs, "T") == "PENDING"
    cluster.run("scancel", str(bobs), user="bob", check=True)


def test_signals_by_name_reach_the_job(cluster: Cluster, local: tuple[RestClient, RestClient]) -> None:
    unix, _ = local
    work = cluster.work_dir("alice")
    script = ("#!/bin/bash\ntrap 'echo USR1 >> caught' USR1\ntrap 'echo USR2 >> caught' USR2\n"
              "touch trapped.$SLURM_JOB_ID\n"
              "for i in $(seq 300); do sleep 0.1; done\n")
    job_id = checked(unix.request("POST", "/slurm/v0.0.44/job/submit", {"script": script, "job": {
        "current_working_directory": str(work), "environment": ["PATH=/usr/bin:/bin"]}})).json["job_id"]
    cluster.wait_state(job_id, "RUNNING")
    caught = work / "caught"
    wait_for(lambda: (work / f"trapped.{job_id}").exists(), 20)     # the trap is set
    for name, expected in (("USR1", "USR1\n"), ("sigusr1", "USR1\nUSR1\n"), ("SIGUSR1", "USR1\n" * 3),
                           ("10", "USR1\n" * 4), ("sigusr2", "USR1\n" * 4 + "USR2\n")):
        sent = checked(unix.request("DELETE", f"/slurm/v0.0.44/job/{job_id}?signal={name}&flags=BATCH_JOB"))
        assert sent.status == 200, sent
        wait_for(lambda: caught.exists() and caught.read_text() == expected, 20)
    unknown = checked(unix.request("DELETE", f"/slurm/v0.0.44/job/{job_id}?signal=SIGNOPE"))
    assert unknown.status == 422 and cluster.job_field(job_id, "T") == "RUNNING"
    # SIGKILL to the whole job ends it, as slurmctld's job_signal does (real scancel -s KILL of a
    # running sleep: sacct CANCELLED), the same for a pending job through scancel
    assert checked(unix.request("DELETE", f"/slurm/v0.0.44/job/{job_id}?signal=KILL")).status == 200
    wait_for(lambda: cluster.job_field(job_id, "T") in ("CANCELLED", ""), 20)
    held = cluster.sbatch("--hold", "--wrap", "true", user="alice")
    cluster.run("scancel", "-s", "KILL", str(held), user="alice", check=True)
    wait_for(lambda: cluster.job_field(held, "T") in ("CANCELLED", ""), 20)


def test_bad_job_description_is_refused_not_ignored(cluster: Cluster, local: tuple[RestClient, RestClient]) -> None:
    unix, _ = local
    answer = checked(unix.request("POST", "/slurm/v0.0.44/job/submit", {
        "script": "#!/bin/bash\ntrue\n", "job": {"current_working_directory": "/tmp", "burst_buffer": "#DW x"}}))
    assert answer.status == 400
    assert "burst_buffer" in answer.json["errors"][0]["description"]
    answer = checked(unix.request("POST", "/slurm/v0.0.44/job/submit", {
        "script": "#!/bin/bash\ntrue\n", "job": {"current_working_directory": "/tmp", "tasks": 2**40}}))
    assert answer.status == 400


def test_restd_refuses_root_and_slurm_user(cluster: Cluster) -> None:
    port = free_port()
    result = subprocess.run([str(BIN / "pyslurmrestd"), "-u", "root", f"127.0.0.1:{port}"], env=cluster.env,
                            capture_output=True, text=True, timeout=30)
    assert (result.returncode, result.stderr.strip()) == (
        1, "pyslurmrestd: fatal: slurmrestd should not be run as the root user.")


def _claims(line: str) -> dict[str, object]:
    import jwt

    assert line.startswith("SLURM_JWT=")
    return jwt.decode(line.strip()[len("SLURM_JWT="):], options={"verify_signature": False})  # type: ignore[no-any-return]


def test_scontrol_token_rules(cluster: Cluster) -> None:
    own = cluster.run("scontrol", "token", user="alice", check=True).stdout
    claims = _claims(own)
    assert claims["sun"] == "alice" and claims["exp"] - claims["iat"] == 1800   # type: ignore[operator]
    assert _claims(cluster.run("scontrol", "token", "lifespan=60", "username=alice", user="alice",
                               check=True).stdout)["exp"] - _claims(own)["iat"] <= 61   # type: ignore[operator]
    refused = cluster.run("scontrol", "token", "username=bob", user="alice")
    assert (refused.returncode, refused.stdout, refused.stderr) == (
        1, "", "scontrol: error: slurm_fetch_token: error with request: Invalid user id\n")
    assert _claims(cluster.run("scontrol", "token", "username=bob", check=True).stdout)["sun"] == "bob"
    bad = cluster.run("scontrol", "token", "lifespan=soon", user="alice")
    assert (bad.returncode, bad.stderr) == (1, 'scontrol: error: Invalid numeric value "soon" for lifespan.\n')
    unknown = cluster.run("scontrol", "token", "expiry=1", user="alice")
    assert (unknown.returncode, unknown.stderr) == (1, "Invalid option: `expiry=1`\n")


def test_hangup_rereads_log_settings_and_keeps_serving(cluster: Cluster,
                                                       local: tuple[RestClient, RestClient]) -> None:
    import signal

    port = free_port()
    with restd(cluster, "alice", f"127.0.0.1:{port}", auth="rest_auth/local") as proc:
        client = RestClient(port=port)
        wait_for(client.up, 20)
        proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "log settings re-read" in (cluster.spec.log_dir / "restd.stderr").read_text(), 20)
        assert proc.poll() is None and client.up()


def test_local_socket_serves_its_own_user_only(cluster: Cluster, local: tuple[RestClient, RestClient]) -> None:
    unix, _ = local
    path = unix.unix_path or ""
    url = "http://localhost/slurm/v0.0.44/ping/"
    own = cluster.run("curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--unix-socket", path, url, user="alice")
    assert own.stdout == "200"
    other = cluster.run("curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--unix-socket", path, url, user="bob")
    assert other.stdout == "000" and other.returncode == 7       # the socket is alice's (0600): no connection


@pytest.mark.parametrize("version", VERSIONS)
def test_coordinators_of_users_and_accounts_with_direct_grants(cluster: Cluster, local: tuple[RestClient, RestClient],
                                                                version: str) -> None:
    """restcoord (an accounting user only) coordinates restlab itself and restsub only through it."""
    unix, _ = local
    wait_for(lambda: cluster.run("sacctmgr", "-n", "show", "cluster").returncode == 0)
    for words in (("account", "restlab"), ("account", "restsub", "Parent=restlab"),
                  ("user", "restcoord", "Account=restsub"), ("coordinator", "account=restlab", "names=restcoord")):
        cluster.run("sacctmgr", "-i", "add", *words)   # the second parametrization finds them there
    coordinator = checked(unix.get(f"/slurmdb/{version}/user/restcoord")).json["users"]
    assert coordinator[0]["coordinators"] == [
        {"name": "restlab", "direct": True}, {"name": "restsub", "direct": False}]
    listed = checked(unix.get(f"/slurmdb/{version}/accounts/")).json["accounts"]
    accounts = {a["name"]: a["coordinators"] for a in listed}
    assert (accounts["restlab"], accounts["restsub"], accounts["root"]) == (
        [{"name": "restcoord", "direct": True}], [{"name": "restcoord", "direct": False}], [])
