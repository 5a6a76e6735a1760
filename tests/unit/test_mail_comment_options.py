"""--mail-type/--mail-user/--comment: parsed as Slurm's sbatch does, carried into the JobDesc and
shown by scontrol (Comment=, MailUser= MailType=), the mail user defaulting to the job's user."""
from __future__ import annotations

import pytest

from cli import job_options
from cli.app import CliError
from cli.command_line import collect, command_line
from cli.mail_types import normalise_mail_type
from cli.option_tables import sbatch


@pytest.mark.parametrize("given, shown", [
    ("end,FAIL", "END,FAIL"), ("FAIL,BEGIN", "BEGIN,FAIL"), ("ALL", "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT"),
    ("TIME_LIMIT,ARRAY_TASKS", "ARRAY_TASKS,TIME_LIMIT"), ("fail,none", "NONE"),
])
def test_mail_type_reads_and_prints_as_slurm(given: str, shown: str) -> None:   # shown: real sbatch -v
    assert normalise_mail_type(given) == shown


def desc_of(args: list[str]):  # type: ignore[no-untyped-def]
    values = collect(sbatch, command_line(sbatch, args), {})
    return job_options.job_desc(values, "wrap", {})


def test_the_options_reach_the_job_description() -> None:
    desc = desc_of(["--mail-type=end,fail", "--mail-user", "a@b", "--comment", "a b"])
    assert (desc.mail_type, desc.mail_user, desc.comment) == ("END,FAIL", "a@b", "a b")
    assert desc_of(["--mail-type=NONE"]).mail_type == ""


def test_an_unknown_mail_type_is_refused_with_exit_255() -> None:
    with pytest.raises(CliError) as info:
        desc_of(["--mail-type=bogus"])
    assert (info.value.lines, info.value.exit_code) == (("Invalid --mail-type specification",), 255)
