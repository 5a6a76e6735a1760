"""Faults inside the controller: a background loop that dies takes the process down with one
line naming it (systemd restarts it and the journal has every job); a journaled event that no
longer applies is set aside, kept and skipped instead of failing every start."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from pyslurm_ctld.shell.journal import Journal

from .conftest import BIN, Cluster, wait_for

# Loaded by the controller's Python at start through PYTHONPATH (site imports sitecustomize): the
# periodic checks' body raises on its fourth pass. Production code has no hook for this.
_CRASH_PERIODIC_CHECKS = """
import pyslurm_ctld.shell.controller

_original, _calls = pyslurm_ctld.shell.controller.timeouts, []


def timeouts(state, now):
    _calls.append(now)
    if len(_calls) > 3:
        raise RuntimeError("injected fault")
    return _original(state, now)


pyslurm_ctld.shell.controller.timeouts = timeouts
"""


def _start_controller_with(cluster: Cluster, site_dir: Path) -> subprocess.Popen[bytes]:
    log = (cluster.spec.log_dir / "ctld.stderr").open("ab")
    return subprocess.Popen([str(BIN / "pyslurmctld")], env=dict(cluster.env, PYTHONPATH=str(site_dir)),
                            stdout=log, stderr=log, stdin=subprocess.DEVNULL)


def test_a_dead_background_loop_stops_the_controller_and_a_restart_recovers_every_job(
        cluster: Cluster, tmp_path: Path) -> None:
    work = cluster.work_dir("alice")
    go = work / "loop-fault.go"
    running = cluster.sbatch("-o", "loop-fault.out", "--wrap",
                             "while [ ! -e loop-fault.go ]; do sleep 0.2; done; echo done $SLURM_JOB_ID", user="alice")
    cluster.wait_state(running, "RUNNING")
    node = cluster.job_field(running, "N")
    pending = cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "true", user="bob")
    (tmp_path / "sitecustomize.py").write_text(_CRASH_PERIODIC_CHECKS)
    log_file, stderr_file = cluster.spec.log_dir / "pyslurmctld.log", cluster.spec.log_dir / "ctld.stderr"
    lines_before, stderr_before = len(log_file.read_text().splitlines()), stderr_file.stat().st_size

    cluster.stop("ctld")
    faulty = _start_controller_with(cluster, tmp_path)
    try:
        assert faulty.wait(timeout=60) == 1
    finally:
        if faulty.poll() is None:
            faulty.kill()
    new_lines = log_file.read_text().splitlines()[lines_before:]
    died = [line for line in new_lines if "died" in line]
    assert len(died) == 1, new_lines
    assert died[0].endswith("] fatal: background loop 'periodic checks' died: RuntimeError: injected fault")
    assert "Traceback" not in "\n".join(new_lines) + stderr_file.read_text()[stderr_before:]

    cluster.start("ctld")      # as systemd's Restart=on-failure would
    wait_for(lambda: cluster.run("squeue", "-h", "-j", f"{running},{pending}", "-o", "%i %T %r %N").stdout ==
             f"{pending} PENDING JobHeldUser \n{running} RUNNING None {node}\n", timeout=30)
    go.touch()
    cluster.wait_state(running, "COMPLETED", timeout=30)
    assert (work / "loop-fault.out").read_text() == f"done {running}\n"
    cluster.run("scancel", str(pending), user="bob", check=True)
    go.unlink()


def test_a_journal_event_that_does_not_apply_is_set_aside_and_the_controller_starts(cluster: Cluster) -> None:
    running = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 300", user="alice")
    cluster.wait_state(running, "RUNNING")
    node = cluster.job_field(running, "N")
    pending = cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "true", user="bob")
    cluster.stop("ctld")
    state = cluster.spec.state_dir / "ctld"
    journal = Journal(state)
    events = list(journal.replay())
    # A start of the pending job whose allocation cannot be read back, before the journal's last event.
    poisoned = {"kind": "started", "job_id": pending, "allocation": {"nodes": 3}, "time": 1, "partition": ""}
    journal.rewrite([*events[:-1], poisoned, events[-1]])
    journal.close()
    log_file = cluster.spec.log_dir / "pyslurmctld.log"
    lines_before = len(log_file.read_text().splitlines())

    cluster.start("ctld")
    wait_for(lambda: cluster.run("squeue", "-h", "-j", f"{running},{pending}", "-o", "%i %T %r %N").stdout ==
             f"{pending} PENDING JobHeldUser \n{running} RUNNING None {node}\n", timeout=30)
    aside = [json.loads(line) for line in (state / "journal.set-aside.jsonl").read_text().splitlines()]
    assert [(a["event"]["kind"], a["event"]["job_id"], a["event"]["allocation"]) for a in aside] == [
        ("started", pending, {"nodes": 3})]
    assert aside[0]["error"].startswith("TypeError: ")
    logged = [line for line in log_file.read_text().splitlines()[lines_before:] if "does not apply" in line]
    assert len(logged) == 1 and f"error: job={pending} journal event 'started' does not apply, skipped and kept in " \
        f"{state / 'journal.set-aside.jsonl'}: TypeError: " in logged[0], logged
    # The compacted journal no longer holds it: the next start sets nothing aside.
    cluster.stop("ctld")
    cluster.start("ctld")
    wait_for(lambda: cluster.run("squeue", "-h", "-j", str(running), "-o", "%T").stdout == "RUNNING\n", timeout=30)
    assert len((state / "journal.set-aside.jsonl").read_text().splitlines()) == 1
    cluster.run("scancel", str(running), str(pending), user="root", check=True)
