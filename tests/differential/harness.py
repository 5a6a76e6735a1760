"""Run the same command lines on real Slurm 22.05 and on pyslurm, normalise what legitimately
differs, and compare.

A `Case` is data: a list of steps run in order on both sides as the same user. `Run` steps are
command lines (shell words; `{J1}`, `{J2}`... are the case's jobs in the order they were
submitted on that side, `{WORK}` the user's work directory); the parts named in `compare` must be
equal after normalisation. `Wait` steps wait on both sides for a job state (squeue, or sacct
for `accounting=True`); `Write` puts a file into the user's work directory.

What is normalised (`Side.normalise`): job ids (`<J1>`, `<J1+1>` for ids the case did not see
submitted, as array tasks'), the cluster name, work directories, the configuration path,
timestamps and the values of the job variables that differ between any two runs (pids, ports,
times). Everything else, words, order, spacing, exit codes, must be the same.
"""
from __future__ import annotations

import difflib
import os
import pwd
import re
import shlex
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import pytest

FIRST_JOB_ID = 70001          # both sides: job ids stand out from other numbers
TIMESTAMP = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\b")
EPOCH = re.compile(r"\b1[6-9]\d{8}\b")
SUBMITTED = re.compile(r"^(?:Submitted batch job (\d+)|(\d+)(?:;\S+)?)$", re.MULTILINE)
JOB_ID = re.compile(r"(?<![\d.])(7\d{4})(?!\d)")
# Job variables whose values differ between any two runs of one job, on one implementation.
VOLATILE_VARIABLES = frozenset({
    "SLURM_TASK_PID", "SLURM_JOB_START_TIME", "SLURM_JOB_END_TIME", "SLURM_SRUN_COMM_PORT",
    "SLURM_STEP_LAUNCHER_PORT", "SLURM_LAUNCH_NODE_IPADDR", "SLURM_SUBMIT_HOST", "SLURM_WORKING_CLUSTER",
    "SLURM_STEP_RESV_PORTS", "SLURM_SRUN_COMM_HOST", "SLURM_JOB_GID", "SLURM_JOB_UID", "SLURM_GTIDS",
    "SLURM_CONF", "SLURM_PRIO_PROCESS", "SLURM_UMASK",
})
VARIABLE = re.compile(r"^([A-Z_][A-Z0-9_]*)=(.*)$", re.MULTILINE)


@dataclass(frozen=True)
class Outcome:
    rc: int
    stdout: str
    stderr: str

    def part(self, name: str) -> object:
        return {"rc": self.rc, "stdout": self.stdout, "stderr": self.stderr}[name]


@dataclass
class Side:
    """One implementation: its environment (PATH to its commands, its configuration) and what
    is its own in outputs."""
    label: str
    env: dict[str, str]
    work_root: Path
    cluster_name: str
    conf_path: Path
    jobs: list[int] = field(default_factory=list)

    def work_dir(self, user: str) -> Path:
        path = self.work_root / user
        if not path.exists():
            path.mkdir(parents=True)
            pw = pwd.getpwnam(user)
            os.chown(path, pw.pw_uid, pw.pw_gid)
        return path

    def run(self, argv: Sequence[str], user: str, stdin: str | None = None, timeout: float = 60) -> Outcome:
        pw = pwd.getpwnam(user)
        kw: dict[str, object] = {}
        if user != "root":
            kw = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": os.getgrouplist(user, pw.pw_gid)}
        env = dict(self.env, USER=user, LOGNAME=user, HOME=pw.pw_dir)
        result = subprocess.run(list(argv), env=env, input=stdin, capture_output=True, text=True,
                                cwd=self.work_dir(user), timeout=timeout, **kw)  # type: ignore[call-overload]
        for match in SUBMITTED.finditer(result.stdout if argv[0] == "sbatch" else ""):
            self.jobs.append(int(match.group(1) or match.group(2)))
        return Outcome(result.returncode, result.stdout, result.stderr)

    def clear_queue(self, timeout: float = 30) -> None:
        for user in ("alice", "root"):
            self.run(["scancel", "-u", user], "root")
        deadline = time.monotonic() + timeout
        while self.run(["squeue", "-h", "-o", "%i"], "root").stdout.strip() and time.monotonic() < deadline:
            time.sleep(0.2)

    def expand(self, words: str, user: str) -> list[str]:
        values = {f"J{i}": str(job) for i, job in enumerate(self.jobs, 1)}
        values["WORK"] = str(self.work_dir(user))
        return [word.format(**values) for word in shlex.split(words)]

    def normalise(self, text: str) -> str:
        text = VARIABLE.sub(lambda m: f"{m.group(1)}=<V>" if m.group(1) in VOLATILE_VARIABLES else m.group(0), text)
        text = text.replace(str(self.conf_path), "<CONF>")
        text = text.replace(str(self.work_root), "<WORK>")
        text = re.sub(rf"\b{re.escape(self.cluster_name)}\b", "<CLUSTER>", text)
        text = TIMESTAMP.sub("<TIME>", text)
        text = EPOCH.sub("<EPOCH>", text)
        names = {job: f"<J{i}>" for i, job in enumerate(self.jobs, 1)}
        base = self.jobs[0] if self.jobs else FIRST_JOB_ID

        def job(match: re.Match[str]) -> str:
            number = int(match.group(1))
            return names.get(number) or f"<J1{number - base:+d}>"
        return JOB_ID.sub(job, text)


@dataclass(frozen=True)
class Run:
    command: str
    user: str = "alice"
    stdin: str | None = None
    compare: tuple[str, ...] = ("rc", "stdout", "stderr")
    lines: str | None = None       # compare only the lines that match this pattern (both sides)
    sort: bool = False             # compare the lines as a set (order not Slurm's contract here)


@dataclass(frozen=True)
class Wait:
    job: str                       # "J1", or a step of it: "J1.batch" (with accounting=True)
    states: tuple[str, ...]        # any of these
    accounting: bool = False       # sacct's State (its records are asynchronous) instead of squeue's
    timeout: float = 60


@dataclass(frozen=True)
class Write:
    name: str
    text: str                      # `{WORK}` is the user's work directory on each side
    user: str = "alice"


Step = Run | Wait | Write


@dataclass(frozen=True)
class Case:
    name: str
    steps: tuple[Step, ...]
    why: str = ""                  # what the case shows (and where the commands come from)


@dataclass
class Pair:
    real: Side
    ours: Side

    def sides(self) -> tuple[Side, Side]:
        return self.real, self.ours

    def play(self, case: Case) -> list[str]:
        """Run every step on both sides; the differences found, as readable text. The case's
        jobs are cancelled at its end, so the next case finds the node free."""
        for side in self.sides():
            side.jobs.clear()
        try:
            return self._steps(case)
        finally:
            for side in self.sides():
                side.clear_queue()

    def _steps(self, case: Case) -> list[str]:
        problems: list[str] = []
        for number, step in enumerate(case.steps, 1):
            if isinstance(step, Write):
                for side in self.sides():
                    path = side.work_dir(step.user) / step.name
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(step.text.replace("{WORK}", str(side.work_dir(step.user))))
                    pw = pwd.getpwnam(step.user)
                    for made in (path, path.parent):
                        os.chown(made, pw.pw_uid, pw.pw_gid)
                    path.chmod(0o755)
                continue
            try:
                if isinstance(step, Wait):
                    for side in self.sides():
                        problem = wait_state(side, step)
                        if problem:
                            return [*problems, f"step {number} ({step}): {problem}"]
                else:
                    problems += self.compare(number, step)
            except KeyError as missing:     # a job the case names was not submitted on a side
                return [*problems, f"step {number} ({step}): no job {missing} on one side"]
        return problems

    def compare(self, number: int, step: Run) -> list[str]:
        outcomes = [side.run(side.expand(step.command, step.user), step.user, step.stdin) for side in self.sides()]
        real, ours = [normalised(side, outcome, step) for side, outcome in zip(self.sides(), outcomes)]
        return [f"step {number} `{step.command}` as {step.user}: {part} differs\n" + difference(real.part(part), ours.part(part))
                for part in step.compare if real.part(part) != ours.part(part)]


def difference(real: object, ours: object) -> str:
    """Both values, or for texts of several lines the lines that differ (- real Slurm, + pyslurm)."""
    if isinstance(real, str) and isinstance(ours, str) and (real.count("\n") > 2 or ours.count("\n") > 2):
        lines = difflib.unified_diff(real.splitlines(), ours.splitlines(), "real Slurm", "pyslurm", lineterm="", n=1)
        return "\n".join(f"  {line!r}" if line[:1] in "+- " and not line.startswith(("---", "+++")) else f"  {line}"
                         for line in lines)
    return f"  real Slurm: {real!r}\n  pyslurm:    {ours!r}"


def normalised(side: Side, outcome: Outcome, step: Run) -> Outcome:
    def clean(text: str) -> str:
        lines = side.normalise(text).splitlines()
        if step.lines is not None:
            lines = [line for line in lines if re.search(step.lines, line)]
        return "\n".join(sorted(lines) if step.sort else lines)
    return Outcome(outcome.rc, clean(outcome.stdout), clean(outcome.stderr))


def wait_state(side: Side, step: Wait) -> str:
    """'' once the job is in one of the states on `side`, else what it was at the timeout."""
    job_name, _, step_name = step.job.partition(".")
    job = side.expand("{" + job_name + "}", "root")[0] + (f".{step_name}" if step_name else "")
    # sacct: slurmdbd may hold a step's record before the job's own (a placeholder without its
    # partition, named "allocation"); the job's record is complete once its partition is there
    argv = (["sacct", "-n", "-P", "-o", "State,Partition", "-j", job, *([] if step_name else ["-X"])]
            if step.accounting else ["squeue", "-h", "-t", "all", "-o", "%T", "-j", job])
    deadline = time.monotonic() + step.timeout
    state = ""
    while time.monotonic() < deadline:
        lines = side.run(argv, "root").stdout.splitlines()
        fields = lines[0].split("|") if lines else [""]
        state = fields[0]
        complete = step_name or not step.accounting or fields[-1] != ""
        if state.split(" ")[0] in step.states and complete:
            return ""
        time.sleep(0.2)
    return f"{side.label}: {step.job} ({job}) still {state or 'unknown'} after {step.timeout:.0f} s"


def differs(reason: str) -> pytest.MarkDecorator:
    """The mark of a case where pyslurm differs from Slurm today, saying how: strict, so the
    case fails once that is fixed and the mark is then removed."""
    return pytest.mark.xfail(reason=reason, strict=True)


def case_ids(cases: Sequence[object]) -> list[str]:
    """Test ids: the cases' names (a marked case is a pytest.param of one)."""
    return [getattr(c, "values", [c])[0].name for c in cases]


def report(case: Case, problems: Iterable[str]) -> str:
    return f"{case.name}: real Slurm and pyslurm differ\n" + "\n".join(problems)
