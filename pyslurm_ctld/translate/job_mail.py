"""Which notices a job's change calls for, and what they say: Slurm's mail subjects, MailProg's
environment, and a body worth reading. Pure: the notifier (notifier.py) sends them.

--mail-type names (sbatch(1)): BEGIN, END, FAIL, REQUEUE, INVALID_DEPEND, STAGE_OUT, TIME_LIMIT,
TIME_LIMIT_90, TIME_LIMIT_80, TIME_LIMIT_50, ARRAY_TASKS, NONE and ALL (BEGIN, END, FAIL,
INVALID_DEPEND, REQUEUE, STAGE_OUT). When Slurm 22.05 mails, from slurmctld's job_mgr.c and
agent.c:

* BEGIN when the job starts (an array's first task only, unless ARRAY_TASKS);
* FAIL when it ends FAILED, TIMEOUT, NODE_FAIL, PREEMPTED (not requeued), BOOT_FAIL, DEADLINE or
  OUT_OF_MEMORY; END when it ends COMPLETED or CANCELLED (so END alone sends nothing for a failed
  job); REQUEUE when it is requeued;
* TIME_LIMIT_50/80/90 when that share of the time limit has run, TIME_LIMIT at the limit, each once;
* INVALID_DEPEND once a pending job's dependency can never be satisfied; STAGE_OUT never (no
  burst buffers here, as Slurm without a burst buffer plugin);
* an array without ARRAY_TASKS: END/FAIL once, when its last task ended, as a summary.

A job name or an -o/-e path may hold a newline or any other control character: Slurm takes them
(sbatch -J $'a\nb' and -o $'/tmp/x\nSubject: evil' are accepted and listed as given) and puts them
in MailProg's subject as they are. Here every such character in a subject or a body line becomes a
space (`one_line`), so a user's text cannot add lines to MailProg's arguments or standard input: no
header, no second subject line, no mailx tilde escape at the start of a line.

Subjects, as agent.c writes them: `Slurm Job_id=12 Name=x Began, Queued time 00:00:01`, `... Ended,
Run time 00:01:05, COMPLETED, ExitCode 0`, `... Failed, Run time ..., FAILED, ExitCode 3`,
`Slurm Array Task Job_id=7_2 (9) Name=x ...`, `Slurm Array Summary Job_id=7_* (7) Name=x Failed,
Mixed, ExitCode [0-3]`. Slurm's mails have no body; ours carries the job's efficiency report (what
seff prints), its exit code and where its output went.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pyslurm_common.mail_types import mail_kinds

from ..model.dependency import PartState
from ..model.job import Job, JobState

SUBJECT_WORDS = {"BEGIN": "Began", "END": "Ended", "FAIL": "Failed", "REQUEUE": "Requeued",
                 "INVALID_DEPEND": "Invalid dependency", "STAGE_OUT": "StageOut/Teardown",
                 "TIME_LIMIT": "Reached time limit", "TIME_LIMIT_90": "Reached 90% of time limit",
                 "TIME_LIMIT_80": "Reached 80% of time limit", "TIME_LIMIT_50": "Reached 50% of time limit"}
TIME_SHARES = (("TIME_LIMIT", 1.0), ("TIME_LIMIT_90", 0.9), ("TIME_LIMIT_80", 0.8), ("TIME_LIMIT_50", 0.5))
_FAIL_STATES = frozenset({JobState.FAILED, JobState.TIMEOUT, JobState.NODE_FAIL, JobState.PREEMPTED,
                          JobState.BOOT_FAIL, JobState.DEADLINE, JobState.OUT_OF_MEMORY})
_END_STATES = frozenset({JobState.COMPLETED, JobState.CANCELLED})


# C0 and C1 controls, DEL, and Unicode's line and paragraph separators
_ONE_LINE = {code: " " for code in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)}


def one_line(text: str) -> str:
    """`text` with every control character (newline, carriage return, tab, ...) made a space."""
    return text.translate(_ONE_LINE)


def wanted(job: Job) -> frozenset[str]:
    """The kinds the job asked for, read by the parser the commands use (pyslurm_common/mail_types.py);
    a --mail-type no command would send (another gRPC client's) asks for none."""
    try:
        return mail_kinds(job.request.mail_type) if job.request.mail_type else frozenset()
    except ValueError:
        return frozenset()


def duration(seconds: int) -> str:
    """Slurm's secs2time_str: `[D-]HH:MM:SS`."""
    days, rest = divmod(max(0, seconds), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    return (f"{days}-" if days else "") + f"{hours:02d}:{minutes:02d}:{secs:02d}"


def run_seconds(job: Job, now: int) -> int:
    end = job.end_time or now
    return max(0, end - job.start_time - job.suspended_secs) if job.start_time else 0


def ended_kinds(job: Job, requeued: bool) -> list[str]:
    """What a job's end (or, with `requeued`, the end of its run before a requeue) calls for, of
    what it asked for, in Slurm's order."""
    asked = wanted(job)
    kinds = []
    if "FAIL" in asked and job.state in _FAIL_STATES and not (job.state is JobState.PREEMPTED and requeued):
        kinds.append("FAIL")
    if requeued and "REQUEUE" in asked:
        kinds.append("REQUEUE")
    if "END" in asked and job.state in _END_STATES and not requeued:
        kinds.append("END")
    return kinds


def time_limit_kinds(job: Job, now: int, sent: Iterable[str]) -> list[str]:
    """The time-limit warnings now due for a running job, not yet sent."""
    limit = job.request.time_limit_min
    if job.state is not JobState.RUNNING or limit <= 0 or not job.start_time:
        return []
    asked, done, ran = wanted(job), set(sent), run_seconds(job, now)
    return [kind for kind, share in TIME_SHARES if kind in asked and kind not in done and ran >= limit * 60 * share]


def dependency_failed(job: Job, now: int) -> bool:
    """A pending job whose dependency can never be satisfied (Slurm's INVALID_DEPEND mail)."""
    return (job.state is JobState.PENDING and job.dependency is not None
            and job.dependency.outcome(now, singleton_free=True) is PartState.FAILED)


@dataclass(frozen=True, slots=True)
class ArraySummary:
    """An array whose tasks all ended: the figures of its summary mail."""

    array_job_id: int
    name: str
    state: JobState               # of the array's own record (its last task)
    min_exit: int
    max_exit: int


def summarize(tasks: Sequence[Job]) -> ArraySummary | None:
    """The summary of an array's task records, once every one has ended; None before."""
    if not tasks or any(not t.state.is_finished or t.completing for t in tasks):
        return None
    array = tasks[0].array
    assert array is not None
    own = next((t for t in tasks if t.job_id == array.array_job_id), tasks[-1])
    codes = [t.exit_code for t in tasks]
    return ArraySummary(array.array_job_id, own.request.name, own.state, min(codes), max(codes))


def summary_kind(summary: ArraySummary, asked: frozenset[str]) -> str | None:
    if "FAIL" in asked and summary.max_exit:
        return "FAIL"
    return "END" if "END" in asked else None


def summary_subject(summary: ArraySummary, kind: str) -> str:
    state = "Mixed" if summary.min_exit == 0 < summary.max_exit else str(summary.state)
    return one_line(f"Slurm Array Summary Job_id={summary.array_job_id}_* ({summary.array_job_id}) "
                    f"Name={summary.name} {SUBJECT_WORDS[kind]}, {state}, "
                    f"ExitCode [{summary.min_exit}-{summary.max_exit}]")


def subject(job: Job, kind: str, now: int) -> str:
    """The subject line of one job's notice."""
    timing = ""
    if kind == "BEGIN" and job.start_time:
        timing = f", Queued time {duration(job.start_time - job.submit_time)}"
    elif kind in ("END", "FAIL", "REQUEUE") + tuple(k for k, _ in TIME_SHARES) and job.start_time:
        timing = f", Run time {duration(run_seconds(job, now))}"
    term = f", {job.state}, ExitCode {job.exit_code}" if kind in ("END", "FAIL") else ""
    array = job.array
    if array is not None and array.task_id is not None:
        return one_line(f"Slurm Array Task Job_id={array.array_job_id}_{array.task_id} ({job.job_id}) "
                        f"Name={job.request.name} {SUBJECT_WORDS[kind]}{timing}{term}")
    return one_line(f"Slurm Job_id={job.job_id} Name={job.request.name} {SUBJECT_WORDS[kind]}{timing}{term}")


def environment(job: Job, kind: str, now: int) -> dict[str, str]:
    """What MailProg gets besides its arguments, as slurmctld sets it."""
    env = {"SLURM_JOB_ID": str(job.job_id), "SLURM_JOBID": str(job.job_id), "SLURM_JOB_NAME": job.request.name,
           "SLURM_JOB_USER": job.user_name, "SLURM_JOB_UID": str(job.uid),
           "SLURM_JOB_PARTITION": job.request.partition, "SLURM_JOB_ACCOUNT": job.request.account,
           "SLURM_JOB_STATE": str(job.state), "SLURM_JOB_MAIL_TYPE": SUBJECT_WORDS[kind]}
    if kind == "BEGIN" and job.start_time:
        env["SLURM_JOB_QUEUED_TIME"] = duration(job.start_time - job.submit_time)
    elif job.start_time:
        env["SLURM_JOB_RUN_TIME"] = duration(run_seconds(job, now))
    if kind in ("END", "FAIL"):
        env["SLURM_JOB_EXIT_CODE_MAX"] = str(job.exit_code)
    return env


def body(job: Job, report: Sequence[str], std_out: str, std_err: str) -> str:
    """The mail's text: the efficiency report, the exit code, where the output went; each of its
    lines one line whatever the job's name and paths hold."""
    lines = [one_line(line) for line in report]
    if job.state.is_finished:
        lines.append(f"Exit code: {job.exit_code}:{job.exit_signal}")
    if not job.request.interactive:
        lines.append(f"Output: {one_line(std_out)}")
        if std_err and std_err != std_out:
            lines.append(f"Errors: {one_line(std_err)}")
    return "\n".join(lines) + "\n"
