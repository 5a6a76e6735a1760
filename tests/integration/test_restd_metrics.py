"""OpenMetrics through pyslurmrestd (MetricsType=metrics/openmetrics): every endpoint passes
`promtool check metrics`, and a real Prometheus (Debian's package) scrapes them all from a running
cluster and answers the query Slinky's autoscaler makes."""
from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from tests.integration.conftest import Cluster, free_port, wait_for
from tests.integration.restd_support import RestClient, debian_tool, serving

SETS = ("jobs", "jobs-users-accts", "nodes", "partitions", "scheduler")
PROMETHEUS, PROMTOOL = debian_tool("prometheus", "prometheus"), debian_tool("promtool", "prometheus")


@pytest.fixture(scope="module")
def scrape_port(cluster: Cluster) -> Iterator[int]:
    with serving(cluster) as port:
        yield port


def _sample(text: str, name: str) -> float:
    line = next(line for line in text.splitlines() if line.startswith(name + " "))
    return float(line.rsplit(" ", 1)[1])


def test_every_endpoint_passes_promtool(cluster: Cluster, scrape_port: int) -> None:
    client = RestClient(port=scrape_port)
    held = cluster.sbatch("--hold", "--wrap", "true", user="alice")
    index = client.get("/metrics")
    assert (index.status, index.content_type) == (200, "text/plain")
    assert all(f"'/metrics/{name}'" in index.text for name in SETS)
    texts = {}
    for name in SETS:
        answer = client.get(f"/metrics/{name}")
        assert (answer.status, answer.content_type) == (200, "text/plain"), answer
        check = subprocess.run([PROMTOOL, "check", "metrics"], input=answer.text, capture_output=True, text=True)
        assert check.returncode == 0, f"/metrics/{name}: {check.stdout}{check.stderr}"
        texts[name] = answer.text
    assert _sample(texts["jobs"], "slurm_jobs_hold") >= 1
    assert _sample(texts["jobs-users-accts"], 'slurm_user_jobs_pending{username="alice"}') >= 1
    assert _sample(texts["nodes"], 'slurm_node_cpus{node="node1"}') == 2
    assert _sample(texts["nodes"], 'slurm_node_gpus{node="node1"}') == 0
    assert _sample(texts["partitions"], 'slurm_partition_jobs_pending{partition="debug"}') >= 1
    assert _sample(texts["partitions"], 'slurm_partition_gpus{partition="debug"}') == 0
    assert _sample(texts["scheduler"], "slurm_slurmdbd_queue_size") >= 0
    cluster.run("scancel", str(held), user="alice", check=True)


# What Prometheus 2.42 sends (scrape.go's scrapeAcceptHeader)
PROMETHEUS_ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
                     "text/plain;version=0.0.4;q=0.5,*/*;q=0.1")


def test_every_endpoint_is_strict_openmetrics_when_asked(cluster: Cluster, scrape_port: int) -> None:
    """prometheus_client's OpenMetrics parser (strict: content, escapes, `# EOF`) takes every set;
    families are gauges with slurmctld 25.11's names (its plugin writes slurm_schedule_cycle_cnt)."""
    from prometheus_client.openmetrics.parser import text_string_to_metric_families

    client = RestClient(port=scrape_port).with_headers(Accept=PROMETHEUS_ACCEPT)
    families = {}
    for name in SETS:
        answer = client.get(f"/metrics/{name}")
        assert answer.status == 200, answer
        assert answer.content_type == "application/openmetrics-text"
        assert answer.text.endswith("\n# EOF\n")
        families.update({f.name: f for f in text_string_to_metric_families(answer.text)})
    assert {f.type for f in families.values()} == {"gauge"}
    assert "slurm_schedule_cycle_cnt" in families and "slurm_sched_cycle_cnt" not in families
    assert families["slurm_node_cpus"].samples[0].labels.keys() == {"node"}


def _query(port: int, expr: str) -> list[dict[str, object]]:
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)["data"]["result"]  # type: ignore[no-any-return]


def test_prometheus_scrapes_a_running_cluster(cluster: Cluster, scrape_port: int) -> None:
    pending = cluster.sbatch("--hold", "--wrap", "true", user="bob")
    root = Path(tempfile.mkdtemp(prefix="pyslurm-prom-"))
    jobs = [{"job_name": f"slurm-{name}", "metrics_path": f"/metrics/{name}", "scrape_interval": "1s",
             "static_configs": [{"targets": [f"127.0.0.1:{scrape_port}"]}]} for name in SETS]
    (root / "prometheus.yml").write_text(json.dumps({"scrape_configs": jobs}))   # JSON is YAML
    web = free_port()
    log = (root / "prometheus.log").open("w")
    prom = subprocess.Popen([PROMETHEUS, f"--config.file={root / 'prometheus.yml'}",
                             f"--storage.tsdb.path={root / 'data'}", f"--web.listen-address=127.0.0.1:{web}"],
                            stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    try:
        def all_up() -> bool:
            try:
                up = _query(web, "up")
            except OSError:
                return False
            return len(up) == len(SETS) and all(r["value"][1] == "1" for r in up)  # type: ignore[index]
        wait_for(all_up, 60, 1)
        autoscaler = wait_for(lambda: _query(web, 'slurm_partition_jobs_pending{partition="debug"}'), 30, 1)
        assert float(autoscaler[0]["value"][1]) >= 1   # type: ignore[index]
        assert wait_for(lambda: _query(web, 'slurm_node_cpus_alloc{node="node2"}'), 30, 1)
        assert wait_for(lambda: _query(web, "slurm_schedule_cycle_last"), 30, 1)
    finally:
        prom.terminate()
        prom.wait(timeout=30)
        shutil.rmtree(root, ignore_errors=True)
        cluster.run("scancel", str(pending), user="bob")
