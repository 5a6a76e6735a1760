"""Command lines that repeat an option, asked of real Slurm 22.05 (bench/repeated_options_record.py)
and of pyslurm (test_repeated_options.py) alike. Slurm's own commands differ: sacct, sshare and
sstat append each occurrence of a list option (sacct -j 1 -j 2 is -j 1,2, which submitit's job
watcher relies on), squeue, sinfo and scancel keep the last one.

Placeholders: {A} {B} the ids of finished jobs rep_a (user {UA}) and rep_b (user {UB}) on {NODE};
{HA} {HB} held jobs of the same names and users. Every command runs as root, in order (the scancel lines
change what the squeue lines after them see)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from subprocess import CompletedProcess

SACCT = ("sacct", "-n", "-X", "-P", "-o", "jobname")
SQUEUE = ("squeue", "-h", "-o", "%j", "-S", "j")
BOTH_HELD = "--name=rep_a,rep_b"
SCENARIO: tuple[tuple[str, ...], ...] = (
    (*SACCT, "-j", "{A}", "-j", "{B}"),                        # each -j adds jobs
    (*SACCT, "--jobs={A}", "-j{B}"),
    (*SACCT, "-j", "{A},{B}", "-u", "{UA}", "-u", "{UB}"),     # each -u adds users
    (*SACCT, "-j", "{A},{B}", "-u", "{UB}"),
    (*SACCT, "-j", "{A},{B}", "-u", "{UB}", "-a"),             # -a after -u: every user
    (*SACCT, "-j", "{A},{B}", "-a", "-u", "{UB}"),             # -u after -a: the users named
    (*SACCT, "-j", "{A},{B}", "-u", "{UB}", "-u", "-1"),       # -u -1: every user
    (*SACCT, "-j", "{A},{B}", "-u", "-1", "-u", "{UB}"),
    (*SACCT, "-j", "{A},{B}", "--name=rep_a", "--name=rep_b"),
    (*SACCT, "-j", "{A},{B}", "--name=rep_a", "--name=nosuch"),
    (*SACCT, "-j", "{A},{B}", "-s", "F", "-s", "CD"),          # each -s adds states
    (*SACCT, "-j", "{A},{B}", "-s", "F", "-s", "CA"),
    (*SACCT, "-j", "{A},{B}", "-r", "nosuch", "-r", "debug"),  # each -r adds partitions
    ("sacct", "-n", "-X", "-P", "-o", "jobname", "-o", "state", "-j", "{A}"),   # each -o adds fields
    (*SACCT, "-j", "{A},{B}", "-N", "nosuch", "-N", "{NODE}"),   # -N: the first, and an error for the second
    (*SACCT, "-j", "{A},{B}", "-N", "{NODE}", "-N", "nosuch"),
    (*SQUEUE, BOTH_HELD),
    (*SQUEUE, "-j{HA}", "-j{HB}"),                             # squeue: the last -j alone
    (*SQUEUE, "--jobs={HA}", "--jobs={HB}"),
    (*SQUEUE, "-j", "{HA}", "-j", "{HB}"),                     # -j's argument is optional: two operands
    (*SQUEUE, "-n", "rep_a", "-n", "rep_b"),
    (*SQUEUE, BOTH_HELD, "-u", "{UA}", "-u", "{UB}"),
    (*SQUEUE, BOTH_HELD, "-t", "R", "-t", "PD"),
    (*SQUEUE, BOTH_HELD, "-t", "PD", "-t", "R"),
    (*SQUEUE, BOTH_HELD, "-p", "nosuch", "-p", "debug"),
    ("sinfo", "-h", "-o", "%R", "-p", "nosuch", "-p", "debug"),
    ("sinfo", "-h", "-O", "partition", "-o", "%R"),                # -o and -O: one format, the last one,
    ("sinfo", "-h", "-o", "%R", "-O", "partition:8"),              # read by names once -O was given
    ("sinfo", "-h", "-O", "partition", "-o", "bogus"),
    ("scancel", "-u", "{UA}", "-u", "{UB}", "-n", "rep_a"),    # scancel: the last -u: {UB} has no rep_a
    (*SQUEUE, BOTH_HELD),
    ("scancel", "-n", "rep_a", "-n", "rep_b"),                 # the last -n: rep_b alone
    (*SQUEUE, BOTH_HELD),
)


def answer(command: tuple[str, ...], names: Mapping[str, str],
           run: Callable[[list[str]], CompletedProcess[str]]) -> dict[str, object]:
    """Run `command` with its placeholders filled in; its exit status, output and first line of
    errors with the ids put back as placeholders (ids differ between the two clusters)."""
    result = run([word.format(**names) for word in command])
    err = (result.stderr.splitlines() or [""])[0]
    for key in ("HA", "HB", "A", "B"):   # the held ids first: {A} could be a prefix of {HA}
        err = err.replace(f" {names[key]}", f" {{{key}}}")
    err = err.replace(f"'{names['NODE']}'", "'{NODE}'")
    return {"command": list(command), "rc": result.returncode, "out": result.stdout, "err": err}
