"""Malformed options and values to every CLI, as an ordinary user, against a running cluster.

Every error reads as Slurm's (`<cmd>: error: ...`, or the exact line Slurm prints), exits 1 (or
255 where real Slurm's option parsers exit -1), shows no Python traceback or exception name, and
comes at once: each command runs with stdin an open pipe that nobody writes to (as a terminal
would be), so one that waits for a script before it checks its options, or expands a huge
range, fails the time bound.
"""
from __future__ import annotations

import os
import pwd
import subprocess
import time

import pytest

from .conftest import Cluster

HUGE = "99999999999999999999"
NOT_UTF8 = b"\xff\xfe"
LONG = "A" * 100_000
ANSWER_WITHIN = 5.0   # seconds; real Slurm answers these in milliseconds
SLURM_EXIT_PARSE = 255   # Slurm's sbatch, srun and salloc exit -1 where their option parsers refuse a value
PYTHON_WORDS = ("Traceback", "<class", "Error:", "Error(", "internal error", "Unexpected")

Word = str | bytes
# (command line, a line its stderr must hold exactly, when Slurm's wording was checked against 22.05)
CASES: list[tuple[tuple[Word, ...], str | None]] = [
    # numbers beyond every wire type, and not numbers at all
    *[(("sbatch", opt, value, "--wrap", "true"), None)
      for opt in ("-N", "-n", "-c", "--ntasks-per-node", "--gpus", "--gpus-per-node", "-t", "--mem", "--mem-per-cpu")
      for value in ("abc", HUGE, "", "-5", "1.5")
      if (opt, value) != ("-N", "-5")],   # a node range with its minimum left out (1-5), which Slurm takes
    (("sbatch", f"--nice={HUGE}", "--wrap", "true"), "sbatch: error: Invalid --nice value, out of range (+/- 2147483645)"),
    (("sbatch", "--mem", HUGE + "T", "--wrap", "true"), "sbatch: error: Invalid --mem specification"),
    (("sbatch", "--begin", "now+" + HUGE, "--wrap", "true"), "sbatch: error: Invalid --begin specification"),
    (("sbatch", "--signal", "USR1@" + HUGE, "--wrap", "true"), "sbatch: error: Invalid --signal specification"),
    (("sbatch", "--array", "1-99999999999", "--wrap", "true"), None),
    (("srun", "-n", HUGE, "true"), None),
    (("srun", "-t", HUGE, "true"), None),
    (("salloc", "-c", HUGE, "true"), None),
    (("salloc", "--mem", HUGE + "T", "true"), None),
    # no script given, stdin open: bad options are refused before anything is read
    *[(("sbatch", opt, value), None) for opt, value in (("-N", "abc"), ("-t", "abc"), ("--mem", "abc"),
                                                        ("--begin", "abc"), ("--signal", "abc"), ("-n", HUGE))],
    # job ids
    *[((cmd, *pre, job_id), None) for job_id in ("1_", "1.x", "-5", "abc", HUGE, "1_[1-", "1_99999999999")
      for cmd, *pre in (("scancel",), ("squeue", "-j"), ("sacct", "-j"), ("sstat", "-j"), ("sprio", "-j"),
                        ("scontrol", "hold"), ("scontrol", "show", "job"))],
    (("scancel", HUGE), f"scancel: error: Invalid job id {HUGE}"),
    (("squeue", "-j", HUGE), f"squeue: error: Invalid job id: {HUGE}"),
    (("sprio", "-j", HUGE), f"sprio: error: Invalid job id: {HUGE}"),
    (("scontrol", "update", f"jobid={HUGE}", "TimeLimit=5"), None),
    (("scontrol", "update", "jobid=1.x", "TimeLimit=5"), None),
    # users, formats, states, dates
    (("sacct", "-u", HUGE), f"sacct: error: Invalid user id: {HUGE}"),
    (("sacct", "-j", "abc"), "sacct: fatal: Bad job/step specified: abc"),
    (("sacct", "-u", "nosuchuser"), "sacct: error: Invalid user id: nosuchuser"),
    (("sacct", "-g", HUGE), None),
    (("squeue", "-o", "%999999999i"), None),
    (("squeue", "-o", f"%.{HUGE}i"), None),
    (("squeue", "-O", f"jobid:{HUGE}"), None),
    (("sinfo", "-o", f"%{HUGE}N"), None),
    (("sacct", "-o", f"jobid%{HUGE}"), None),
    (("sstat", "-j", "1", "-o", f"jobid%{HUGE}"), None),
    (("sacct", "-S", "now+" + HUGE), None),
    (("sacct", "-E", "2024-13-45"), None),
    (("squeue", "-t", "bogus"), None),
    (("sacct", "-s", "bogus"), None),
    # words that are not UTF-8, and very long ones
    *[((cmd, *pre, NOT_UTF8, *post), None) for cmd, *pre, post in (
        ("sbatch", "-J", ("--wrap", "true")), ("sbatch", "-w", ("--wrap", "true")), ("srun", "-p", ("true",)),
        ("salloc", "-A", ("true",)), ("scancel", "-n", ()), ("squeue", "-u", ()), ("sacct", "-u", ()),
        ("sshare", "-A", ()), ("sprio", "-u", ()), ("sinfo", "-p", ()), ("scontrol", "show", "partition", ()),
    )],
    # (sdiag and sinfo ignore operands, as Slurm's do: `sdiag AAAA` prints the statistics)
    *[((cmd, *pre, LONG), None) for cmd, *pre in (("scancel",), ("squeue", "-j"), ("sacct", "-j"), ("sacct",))],
    # unknown options everywhere (getopt's own words and exit status -1 for the three with Slurm's tables)
    *[((cmd, "--bogus"), f"{cmd}: unrecognized option '--bogus'") for cmd in (
        "sbatch", "srun", "salloc", "squeue", "scancel", "sinfo", "sacct", "sstat", "sdiag", "sprio", "sshare")],
    *[((cmd, "--bogus"), None) for cmd in ("scontrol", "sreport")],
]
# Lines real Slurm prints without a `<cmd>: error:` (or `fatal:`) prefix.
SLURM_BARE_PREFIXES = ("slurm_load_jobs error: ", "slurm_update error: ", " Unknown ", " You need ")
# and glibc getopt's own refusals, `<cmd>: invalid option -- '5'` (scancel -5: a negative job id is an option)
GETOPT_WORDS = ("invalid option -- ", "unrecognized option ")


def _text(word: Word) -> str:
    return word.decode(errors="backslashreplace") if isinstance(word, bytes) else word[:40]


def _run_with_open_stdin(cluster: Cluster, argv: tuple[Word, ...]) -> tuple[int | None, str, float]:
    pw = pwd.getpwnam("alice")
    env = dict(cluster.env, USER="alice", HOME=pw.pw_dir)
    read_end, write_end = os.pipe()
    started = time.monotonic()
    proc = subprocess.Popen([os.fsencode(w) for w in argv], env=env, stdin=read_end, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=str(cluster.work_dir("alice")),
                            user=pw.pw_uid, group=pw.pw_gid)
    os.close(read_end)
    try:
        _, err = proc.communicate(timeout=ANSWER_WITHIN * 4)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        code = None
    finally:
        os.close(write_end)
    return code, err.decode(errors="replace"), time.monotonic() - started


@pytest.mark.parametrize("argv, exact", CASES, ids=[" ".join(map(_text, c[0])) for c in CASES])
def test_bad_input_gets_slurms_error_at_once(cluster: Cluster, argv: tuple[Word, ...], exact: str | None) -> None:
    code, err, seconds = _run_with_open_stdin(cluster, argv)
    command = str(argv[0])
    assert code is not None and seconds < ANSWER_WITHIN, f"took {seconds:.1f}s: {err[-300:]}"
    assert code in (1, SLURM_EXIT_PARSE), err[-300:]
    assert not any(word in err for word in PYTHON_WORDS), err[-500:]
    lines = err.splitlines()
    assert any(line.startswith((f"{command}: error: ", f"{command}: fatal: ", *SLURM_BARE_PREFIXES,
                                *(f"{command}: {words}" for words in GETOPT_WORDS)))
               for line in lines) or exact in lines, err[-300:]
    if exact is not None:
        assert exact in lines, err[-300:]
