"""Options given more than once, against a live cluster, answered as real Slurm 22.05 answered
the same command lines (tests/data/repeated_options/oracle.json, recorded on the oracle by
bench/repeated_options_record.py): sacct appends each -j, -u, --name, -s, -r and -o (submitit's
job watcher asks `sacct -j A -j B ...`); squeue, sinfo and scancel keep the last occurrence."""
from __future__ import annotations

import json
from pathlib import Path

from .conftest import Cluster, wait_for
from .repeated_options_scenario import SCENARIO, answer

ORACLE = json.loads((Path(__file__).parents[1] / "data" / "repeated_options" / "oracle.json").read_text())


def test_repeated_options_as_real_slurm(cluster: Cluster) -> None:
    assert [step["command"] for step in ORACLE] == [list(command) for command in SCENARIO]
    # on one node, as on the oracle's single one, so that -N selects both
    done = {"A": cluster.sbatch("-J", "rep_a", "-w", "node1", "-o", "/dev/null", "--wrap", "true", user="alice"),
            "B": cluster.sbatch("-J", "rep_b", "-w", "node1", "-o", "/dev/null", "--wrap", "true", user="bob")}
    query = ("sacct", "-n", "-X", "-P", "-o", "jobname,state", "-j", f"{done['A']},{done['B']}")
    wait_for(lambda: cluster.run(*query).stdout.split() == ["rep_a|COMPLETED", "rep_b|COMPLETED"], 30)
    held = {"HA": cluster.sbatch("-J", "rep_a", "-H", "--wrap", "true", user="alice"),
            "HB": cluster.sbatch("-J", "rep_b", "-H", "--wrap", "true", user="bob")}
    node = cluster.run("sacct", "-n", "-X", "-P", "-o", "nodelist", "-j", str(done["A"])).stdout.strip()
    names = {**{k: str(v) for k, v in {**done, **held}.items()}, "UA": "alice", "UB": "bob", "NODE": node}
    answers = [answer(command, names, lambda words: cluster.run(*words)) for command in SCENARIO]
    for ours, real in zip(answers, ORACLE):
        assert ours == real
