"""The node's durable record of step ends that the controller has not acknowledged yet.

Once a step is over its end is known: the stepd's `result.json`, with the Epilog's outcome for a
batch script, or a stand-in when the stepd died without writing one. It is reported at once, and
again in every registration and heartbeat until the controller acknowledges it; only then does
the step's spool directory go. An end that would not come out the same if worked out again (a
stand-in's end time, an Epilog's outcome, GPU figures) is first written to `end.json` there
(steps.py), atomically and fsync'd; any other end is written so once its first report failed,
and until then `result.json`, which outlives every process, gives the same end again. So an end
survives a controller that is down or restarting and a restart of this agent, and is never
reported twice as two different ends; a trivial job's end costs no disk flush on the node.
"""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from .step_messages import MessageError, StepResult, decode, encode

END_FILE = "end.json"


def write_end(step_dir: Path, result: StepResult) -> None:
    tmp = step_dir / (END_FILE + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(encode(result))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, step_dir / END_FILE)
    dir_fd = os.open(step_dir, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def read_end(step_dir: Path) -> StepResult | None:
    """The recorded end, or None when there is none (a torn write never replaced end.json)."""
    try:
        return decode(StepResult, (step_dir / END_FILE).read_bytes())
    except (FileNotFoundError, MessageError):
        return None


def read_result(step_dir: Path, job_id: int) -> StepResult:
    """The stepd's own result, or, when it died without one, the end of a step whose stepd was
    lost: killed (SIGKILL) as far as anyone can tell, which the controller reports as a node
    failure since how its tasks ended is unknown."""
    try:
        return decode(StepResult, (step_dir / "result.json").read_bytes())
    except (FileNotFoundError, MessageError):
        return StepResult(job_id=job_id, exit_signal=int(signal.SIGKILL), stepd_lost=True,
                          error="stepd ended without a result", end_time=int(time.time()))
