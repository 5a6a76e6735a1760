"""How job steps end, and what their ends do to the job: pure functions over the records.

A step's nodes report their part one by one (`step_part_ended`); a node that failed never
will (`node_gone_from_steps`). A job that is COMPLETING is done once its batch step, if it has
one, and every step have ended (`settled`); a job that ends first takes its running steps
with it (`terminate_steps`).
"""
from __future__ import annotations

import dataclasses

from .events import Effect, StepFinished, Terminate
from .job import Job, JobState, Step, StepUsage


def settled(job: Job) -> Job:
    """A completing job is done once its batch step (if it has one) and every step ended."""
    if job.completing and (job.request.interactive or job.batch_ended) and not job.running_steps:
        return dataclasses.replace(job, completing=False)
    return job


def terminate_steps(job: Job) -> list[Effect]:
    nodes = tuple(dict.fromkeys(n for step in job.running_steps for n in step.waiting_on))
    return [Terminate(job.job_id, nodes, "CANCELLED")] if nodes else []


def step_part_ended(step: Step, event: StepFinished) -> Step:
    """The step with one node's outcome folded in; final once no node is left to report.

    The first node to fail the launch, be cancelled or run out of memory decides how the
    step ends (`end_state`); otherwise the exit figures do: highest code, first signal.
    """
    end_state = step.end_state
    if end_state is None:
        if event.node_failed:
            end_state = JobState.NODE_FAIL
        elif event.launch_failed:
            end_state = JobState.FAILED
        elif event.cancelled:
            end_state = JobState.CANCELLED
        elif event.out_of_memory:
            end_state = JobState.OUT_OF_MEMORY
    usage = step.usage
    if event.usage is not None:
        peak = usage if usage is not None and usage.max_rss_kb >= event.usage.max_rss_kb else event.usage
        usage = event.usage if usage is None else StepUsage(
            peak.max_rss_kb, usage.user_cpu_usec + event.usage.user_cpu_usec,
            usage.system_cpu_usec + event.usage.system_cpu_usec, peak.max_rss_node, usage.gpus + event.usage.gpus)
    exit_code = max(step.exit_code, event.exit_code)
    exit_signal = step.exit_signal or event.exit_signal
    waiting = tuple(n for n in step.waiting_on if n != event.node)
    step = dataclasses.replace(step, waiting_on=waiting, usage=usage, exit_code=exit_code,
                               exit_signal=exit_signal, end_state=end_state)
    if waiting:
        return step
    final = end_state or (JobState.FAILED if exit_code or exit_signal else JobState.COMPLETED)
    return dataclasses.replace(step, state=final, end_time=event.time)


def node_gone_from_steps(job: Job, node: str, time: int) -> Job:
    """A failed node will never report its part of the job's running steps: a step with no other
    node ends NODE_FAIL; one whose other nodes are killed for it ends as they report (CANCELLED,
    as Slurm's, whose surviving stepds report the kill)."""
    steps = []
    for step in job.steps:
        if step.running and node in step.waiting_on:
            waiting = tuple(n for n in step.waiting_on if n != node)
            step = dataclasses.replace(step, waiting_on=waiting)
            if not waiting:
                step = dataclasses.replace(step, state=step.end_state or JobState.NODE_FAIL, end_time=time)
        steps.append(step)
    return dataclasses.replace(job, steps=tuple(steps))
