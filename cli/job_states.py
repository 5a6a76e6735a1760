"""Job state names as users see them: compact codes, display state, ``-t`` filters.

Spec §0.4 (cli-squeue-sinfo-scontrol-scancel.md): the names themselves (``PENDING``,
``RUNNING`` ... carried in ``JobInfo.state``) and their compact codes (``PD``, ``R`` ...) are
:mod:`pyslurm_common.job_states`; this module owns the rule that the COMPLETING flag wins when
printing, the set of states squeue shows by default and the parsing of ``-t/--states`` lists.

Pure: no I/O. The only error is ``ValueError`` from :func:`parse_state_list`, whose single
argument is the offending name so the CLI can print
``squeue: error: Invalid job state specified: <name>``.
"""

from __future__ import annotations

from collections.abc import Iterable

from pyslurm_common.job_states import ACTIVE_STATES, STATE_CODES, JobState
from pyslurm_common.rpc import messages as pb

_CODE_TO_LONG: dict[str, str] = {code: long for long, code in STATE_CODES.items()}

# States squeue lists when no -t is given (§1.4).
DEFAULT_SQUEUE_STATES: frozenset[str] = ACTIVE_STATES | {"COMPLETING", "STAGE_OUT"}

# Finished states for which squeue's %R shows "(Reason)" instead of the node list (§1.2).
REASON_STATES: frozenset[str] = frozenset(
    {JobState.PENDING, JobState.FAILED, JobState.TIMEOUT, JobState.OUT_OF_MEMORY, JobState.DEADLINE}
)

ALL_STATES: frozenset[str] = frozenset(STATE_CODES)


def compact_state(long_name: str) -> str:
    """``RUNNING`` -> ``R``; an unknown name is returned unchanged."""
    return STATE_CODES.get(long_name.upper(), long_name)


def display_state(job: pb.JobInfo) -> str:
    """The long state printed for *job*: ``COMPLETING`` while the flag is set, else the base."""
    if job.completing:
        return "COMPLETING"
    return job.state or "PENDING"


def display_state_compact(job: pb.JobInfo) -> str:
    """The compact state printed for *job* (``CG`` while completing); squeue prints one per line,
    so a known name is looked up directly."""
    if job.completing:
        return _COMPLETING_CODE
    return STATE_CODES.get(job.state) or compact_state(job.state or "PENDING")


_COMPLETING_CODE = compact_state("COMPLETING")




def normalize_state(name: str) -> str:
    """``pd``/``Pending``/``PD`` -> ``PENDING``; raise ``ValueError(name)`` if unknown."""
    key = name.strip().upper()
    if key in STATE_CODES:
        return key
    if key in _CODE_TO_LONG:
        return _CODE_TO_LONG[key]
    raise ValueError(name)


def parse_state_list(text: str) -> frozenset[str]:
    """Parse a ``-t/--states`` value (comma list, case-insensitive, long or compact, ``all``).

    Returns long names. ``all`` anywhere in the list selects every state.
    Raises ``ValueError(<bad name>)`` for an unknown name.
    """
    states: set[str] = set()
    for item in text.split(","):
        if not item.strip():
            continue
        if item.strip().lower() == "all":
            return ALL_STATES
        states.add(normalize_state(item))
    return frozenset(states)


def valid_states_text() -> str:
    """The list printed after ``Valid job states include:``."""
    return " ".join(STATE_CODES)


def is_shown_by_default(job: pb.JobInfo) -> bool:
    """True if squeue without ``-t`` lists *job* (active, or finished but still completing)."""
    return job.completing or (job.state or "PENDING") in DEFAULT_SQUEUE_STATES


def matches_states(job: pb.JobInfo, states: Iterable[str]) -> bool:
    """True if *job* is in one of *states* (long names): its base state, or COMPLETING flag."""
    wanted = set(states)
    if job.completing and "COMPLETING" in wanted:
        return True
    return (job.state or "PENDING") in wanted


def shows_reason(job: pb.JobInfo) -> bool:
    """True if squeue's ``%R`` prints ``(Reason)`` rather than the node list."""
    return not job.completing and (job.state or "PENDING") in REASON_STATES


def run_seconds(job: pb.JobInfo, now: int) -> int:
    """Seconds *job* has run, time suspended not counted (Slurm stops the clock): 0 before it
    starts, to ``now`` while RUNNING (or completing without an end time), to its suspension while
    SUSPENDED, to its end once it has ended."""
    if not job.start_time or (job.state or "PENDING") == "PENDING":
        return 0
    if job.state == JobState.SUSPENDED and job.suspend_time:
        return pre_suspend_seconds(job)
    active = job.state in (JobState.RUNNING, JobState.SUSPENDED)
    end = job.end_time if job.end_time and not active else now
    return max(0, end - job.start_time - job.suspended_secs)


def pre_suspend_seconds(job: pb.JobInfo) -> int:
    """Slurm's SecsPreSuspend: what the job had run when it was last suspended (0: never was).
    Whether suspended now or resumed since, that is `suspend_time` (the suspension, or the resume
    that also ended the suspensions counted in `suspended_secs`) less the start and those."""
    if not job.suspend_time or not job.start_time:
        return 0
    return max(0, job.suspend_time - job.start_time - job.suspended_secs)


def worst_step(steps: Iterable[pb.StepInfo]) -> pb.StepInfo | None:
    """The srun step with the highest exit code (then signal): Slurm's DerivedExitCode comes from
    these only (the batch step's status is the job's own ExitCode; checked on real Slurm 22.05)."""
    return max((s for s in steps if s.step_id.isdigit()), key=lambda s: (s.exit_code, s.exit_signal), default=None)


def derived_exit_code(steps: Iterable[pb.StepInfo]) -> str:
    """DerivedExitCode as sacct and scontrol print it, ``0:0`` without srun steps."""
    worst = worst_step(steps)
    return f"{worst.exit_code}:{worst.exit_signal}" if worst else "0:0"
