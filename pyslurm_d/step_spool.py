"""The node's durable record of step ends that the controller has not acknowledged yet.

Once a step is over and its end is known (the stepd's `result.json`, with the Epilog's outcome
for a batch script, or a stand-in when the stepd died without writing one), the end is written
to `end.json` in the step's spool directory (steps.py), atomically and fsync'd. It is reported
at once, and again in every registration and heartbeat until the controller acknowledges it;
only then does the directory go. So an end survives a controller that is down or restarting
and a restart of this agent, and is never reported twice as two different ends.
"""
from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

Result = dict[str, object]
END_FILE = "end.json"


def write_end(step_dir: Path, result: Result) -> None:
    tmp = step_dir / (END_FILE + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(result, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, step_dir / END_FILE)
    dir_fd = os.open(step_dir, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def read_end(step_dir: Path) -> Result | None:
    """The recorded end, or None when there is none (a torn write never replaced end.json)."""
    try:
        data = json.loads((step_dir / END_FILE).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def read_result(step_dir: Path, job_id: int) -> Result:
    """The stepd's own result, or, when it died without one, the end of a step whose stepd was
    lost: killed (SIGKILL) as far as anyone can tell, which the controller reports as a node
    failure since how its tasks ended is unknown."""
    try:
        data = json.loads((step_dir / "result.json").read_text())
        if isinstance(data, dict):
            return data
    except (FileNotFoundError, json.JSONDecodeError):
        pass
    return {"job_id": job_id, "exit_code": 0, "exit_signal": int(signal.SIGKILL), "launch_failed": False,
            "stepd_lost": True, "error": "stepd ended without a result", "start_time": 0,
            "end_time": int(time.time())}
