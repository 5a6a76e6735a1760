"""pyslurm_restd.openmetrics: the Accept header decides between slurmctld's text format and
OpenMetrics 1.0.0, and the OpenMetrics body is what a strict parser takes."""
from __future__ import annotations

import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families

from pyslurm_common.rpc import ctld_pb2
from pyslurm_restd.openmetrics import render, wants_openmetrics


@pytest.mark.parametrize("accept, expected", [
    ("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1", True),
    ("text/plain;version=0.0.4;q=0.9,application/openmetrics-text;q=0.3", False),
    ("application/openmetrics-text;q=0", False), ("", False), ("*/*", False), ("text/plain", False),
])
def test_accept_header(accept: str, expected: bool) -> None:
    assert wants_openmetrics(accept) is expected


def test_openmetrics_body_parses_strictly_and_the_text_body_is_slurmctlds() -> None:
    gauges = [ctld_pb2.Gauge(name="node_cpus", label="node", label_value='n"1\\', value=2),
              ctld_pb2.Gauge(name="node_cpus", label="node", label_value="n2", value=4),
              ctld_pb2.Gauge(name="schedule_cycle_cnt", value=7)]
    families = list(text_string_to_metric_families(render(gauges, True)))
    assert [(f.name, f.type, [(s.labels, s.value) for s in f.samples]) for f in families] == [
        ("slurm_node_cpus", "gauge", [({"node": 'n"1\\'}, 2.0), ({"node": "n2"}, 4.0)]),
        ("slurm_schedule_cycle_cnt", "gauge", [({}, 7.0)])]
    plain = render(gauges)
    assert "# EOF" not in plain and plain.splitlines()[:2] == [
        "# HELP slurm_node_cpus CPUs of the node", "# TYPE slurm_node_cpus gauge"]
    with pytest.raises(ValueError):          # what the strict parser says of slurmctld's own format
        list(text_string_to_metric_families(plain))
