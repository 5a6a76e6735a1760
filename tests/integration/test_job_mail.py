"""--mail-type/--mail-user through MailProg end to end: a MailProg script that records its
arguments, environment and standard input, and hangs afterwards (as a dead mail server would),
which must delay no job."""
from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.cluster_files import ClusterSpec

from .conftest import Cluster, running_cluster, two_node_spec, wait_for


def _mail_prog(root: Path) -> Path:
    record = root / "mails"
    record.mkdir(mode=0o777)
    script = root / "mailprog"
    script.write_text(f"""#!/bin/sh
f=$(mktemp {record}/mail.XXXXXX)
{{ printf '%s\\n' "$@"; echo "TYPE=$SLURM_JOB_MAIL_TYPE STATE=$SLURM_JOB_STATE"; echo ---; cat; }} > "$f"
sleep 20
""")
    script.chmod(0o755)
    return script


@pytest.fixture(scope="module")
def mail_cluster() -> Iterator[Cluster]:
    def spec(root: Path, name: str) -> ClusterSpec:
        base = two_node_spec(root, name)
        return dataclasses.replace(base, extra=(*base.extra, f"MailProg={_mail_prog(root)}"))

    with running_cluster(spec) as c:
        yield c


def _mails(c: Cluster) -> list[list[str]]:
    return [p.read_text().splitlines() for p in sorted((c.spec.conf_dir.parent / "mails").iterdir())]


def test_begin_and_fail_mails_with_slurms_subjects_and_a_summary(mail_cluster: Cluster) -> None:
    c = mail_cluster
    started = time.monotonic()
    job_id = c.sbatch("-J", "train", "--mail-type=ALL", "--mail-user=alice@lab.example", "--wrap", "sleep 1; exit 3",
                      user="alice")
    c.wait_state(job_id, "FAILED")
    assert time.monotonic() - started < 15   # the hanging MailProg held nothing up

    def mine() -> list[list[str]]:
        return [m for m in _mails(c) if f"Slurm Job_id={job_id} Name=train" in m[1]]
    mails = sorted(wait_for(lambda: len(mine()) == 2 and mine()), key=lambda m: m[1])  # type: ignore[arg-type]
    begin, fail = sorted(mails, key=lambda m: "Began" not in m[1])
    assert begin[0] == "-s" and begin[2] == "alice@lab.example"
    assert begin[1].startswith(f"Slurm Job_id={job_id} Name=train Began, Queued time 00:00:0")
    assert begin[3] == "TYPE=Began STATE=RUNNING"
    assert fail[1].startswith(f"Slurm Job_id={job_id} Name=train Failed, Run time 00:00:0")
    assert fail[1].endswith(", FAILED, ExitCode 3")
    assert fail[3] == "TYPE=Failed STATE=FAILED"
    body = fail[fail.index("---") + 1:]
    assert body[:4] == [f"Job ID: {job_id}", f"Cluster: {c.spec.cluster_name}", "User/Group: alice/alice",
                        "State: FAILED (exit code 3)"]
    assert "Exit code: 3:0" in body and f"Output: {c.work_dir('alice')}/slurm-{job_id}.out" in body


def test_end_mail_goes_to_the_owner_by_default_and_none_without_mail_type(mail_cluster: Cluster) -> None:
    c = mail_cluster
    quiet = c.sbatch("--wrap", "true", user="bob")
    job_id = c.sbatch("--mail-type=END", "--wrap", "true", user="bob")
    c.wait_state(job_id, "COMPLETED")
    c.wait_state(quiet, "COMPLETED")
    found = wait_for(lambda: [m for m in _mails(c) if f"Slurm Job_id={job_id} " in m[1]])
    [mail] = found  # type: ignore[misc]
    assert mail[2] == "bob" and mail[1].endswith("Ended, Run time 00:00:00, COMPLETED, ExitCode 0")
    time.sleep(1)
    assert not [m for m in _mails(c) if f"Slurm Job_id={quiet} " in m[1]]


def test_a_name_and_path_with_newlines_add_no_line_to_mailprogs_arguments_or_input(mail_cluster: Cluster) -> None:
    """Slurm 22.05 takes `sbatch -J $'a\\nb'` and `-o $'/tmp/x\\nSubject: evil'` as given (squeue %j
    prints the two lines); the user's text must still not become a header, a second subject line
    or a mailx tilde escape (`~!` runs a command) in what MailProg gets from the controller."""
    c = mail_cluster
    out = f"{c.work_dir('alice')}/out\n~! touch pwned-by-mail\nSubject: evil"     # a file name: no "/" after
    job_id = c.sbatch("-J", "evil\nCc: victim@example.org\nBcc: x@example.org", "--mail-type=END",
                      "-o", out, "--wrap", "true", user="alice")
    c.wait_state(job_id, "COMPLETED")
    listed = c.run("squeue", "-h", "-j", str(job_id), "-t", "all", "-o", "%j", user="alice").stdout
    assert listed in ("", "evil\nCc: victim@example.org\nBcc: x@example.org\n")   # kept as given, as Slurm
    found = wait_for(lambda: [m for m in _mails(c) if f"Slurm Job_id={job_id} " in m[1]])
    [mail] = found  # type: ignore[misc]
    assert mail[0] == "-s" and mail[2] == "alice" and mail[3].startswith("TYPE=Ended")   # three arguments
    assert mail[1] == (f"Slurm Job_id={job_id} Name=evil Cc: victim@example.org Bcc: x@example.org Ended, "
                       "Run time 00:00:00, COMPLETED, ExitCode 0")
    body = mail[mail.index("---") + 1:]
    assert not [line for line in body if line.startswith(("~", "Subject:", "Cc:", "Bcc:"))]
    assert f"Output: {c.work_dir('alice')}/out ~! touch pwned-by-mail Subject: evil" in body
